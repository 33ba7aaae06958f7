//go:build !lake || !heavy || race

package e2etest

import (
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
)

// TestLake is the lake the tests' runs publish to. The fast tier and a
// race build link no lake (drivers.go links it for the heavy tier's
// object storage tests), so it is billsnap's own: the lake's program.
func TestLake() cli.Lake { return lakeprogram.Program{} }

// setLakeCredentials does nothing: without the heavy tier's in-process
// lake, no test publishes to object storage.
func setLakeCredentials(string) {}
