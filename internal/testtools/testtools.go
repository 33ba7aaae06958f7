// Package testtools gives tests the programs they need: a program missing
// from the machine is installed from Debian's packages when the test runs
// as root with apt-get (as on a fresh CI machine), one install at a time.
package testtools

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// Require returns the path of program, installing the Debian package pkg
// when it is missing and the test may install. Otherwise the test fails
// with what to install: a test that needs a program is never skipped.
func Require(t testing.TB, pkg string, programs ...string) string {
	t.Helper()
	if path := find(programs); path != "" {
		return path
	}
	if err := install(pkg); err != nil {
		t.Fatalf("%s is needed (Debian package %s; .ci/run installs it): %v", programs[0], pkg, err)
	}
	if path := find(programs); path != "" {
		return path
	}
	t.Fatalf("%s is still missing after installing %s", programs[0], pkg)
	return ""
}

func find(programs []string) string {
	for _, p := range programs {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	return ""
}

// install runs apt-get install pkg under an exclusive lock, so that test
// binaries of several packages do not fight over dpkg.
func install(pkg string) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("not root, cannot install")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("no apt-get")
	}
	lock, err := os.OpenFile(os.TempDir()+"/billsnap-test-apt.lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	run := func(args ...string) error {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get %v: %v: %s", args, err, tail(out))
		}
		return nil
	}
	if err := run("install", "-y", "-qq", "--no-install-recommends", pkg); err == nil {
		return nil
	}
	if err := run("update", "-qq"); err != nil {
		return err
	}
	return run("install", "-y", "-qq", "--no-install-recommends", pkg)
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}
