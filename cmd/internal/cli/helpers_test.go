package cli

import (
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// exportKey is the sandbox's API key.
const exportKey = sandboxtest.Key

// noEnv is an empty environment.
func noEnv(string) string { return "" }

// oneThread runs the store's DuckDB queries on one thread: the tests'
// data is small (e2etest.OneThread says more).
func oneThread(c *config.Config) { c.DuckDB.Threads = 1 }
