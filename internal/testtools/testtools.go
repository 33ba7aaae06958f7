// Package testtools finds the programs tests need. It never installs
// anything: installing is .ci/run's job. A program that is missing fails
// the test with its name and the Debian package that has it, so that a
// test that needs a program is never skipped in silence.
package testtools

import (
	"os/exec"
	"testing"
)

// Require returns the path of the first of programs on PATH; when none is
// there the test fails, naming the program and the Debian package pkg.
func Require(t testing.TB, pkg string, programs ...string) string {
	t.Helper()
	for _, p := range programs {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Fatalf("this test needs %s, which is not on PATH: install the Debian package %s (.ci/run does; tests never install software)", programs[0], pkg)
	return ""
}
