// Package sandboxtest serves the sandbox to tests over real HTTP: one
// starter for every package's tests, the way net/http/httptest serves a
// handler.
package sandboxtest

import (
	"testing"

	"github.com/billsnap/billsnap/sandbox"
)

// Key is the API key the sandboxes of tests accept. It is long and odd
// enough that a test finding it in an output finds a leak, not a word.
const Key = "sandbox-test-key-7f3a"

// Start serves a sandbox of data o with faults (sandbox.ParseFaults) on a
// loopback port until the test ends; it accepts Key.
func Start(t testing.TB, o sandbox.Options, faults string) *sandbox.Server {
	t.Helper()
	f, err := sandbox.ParseFaults(faults)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{Data: o, APIKey: Key, Faults: f}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}
