package main

import "github.com/billsnap/billsnap/lake/program"

// The bench publishes to object storage as billsnap does: its export
// children run billsnap-lake (package lake/program), so that their RSS is
// billsnap's own, and --lake's time includes the lake program's.
func init() { program.Register() }
