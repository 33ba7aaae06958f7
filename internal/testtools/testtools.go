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

// RequirePython returns the path of a python3 that imports module: the one
// on PATH, else the system's (/usr/bin/python3, where Debian's packages
// install modules); when neither does the test fails, naming the module
// and the Debian package pkg.
func RequirePython(t testing.TB, module, pkg string) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err == nil && exec.Command(path, "-c", "import "+module).Run() == nil {
			return path
		}
	}
	t.Fatalf("this test needs the Python module %s: install the Debian package %s (.ci/run does; tests never install software)", module, pkg)
	return ""
}
