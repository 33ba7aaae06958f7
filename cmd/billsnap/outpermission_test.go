package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// nobody is the user the permission tests run billsnap as when the tests
// run as root, to whom every folder is open.
const nobody = 65534

// An --out billsnap may not use for want of permission is exit 2, at most
// two lines naming it and why, from every command, before any work: a
// store folder a reader may not read or a writer (export, run, reconcile,
// report) may not write, a missing store whose parent a writer may not
// write in, a folder above it that cannot be entered. billsnap runs as a child process (the test binary,
// as main), as the user nobody when the tests run as root, so that the
// folders' modes are refused as they would be to anyone.
func TestAnOutWithoutPermissionIsAUsageError(t *testing.T) {
	t.Parallel()
	dir := openTempDir(t)
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	readOnly, unreadable, shut := mk("readonly", 0o555), mk("unreadable", 0o311), mk("shut", 0o700)
	if err := os.Chmod(unreadable, 0o311); err != nil { // past the umask
		t.Fatal(err)
	}
	bin := nobodysBinary(t, dir)
	for _, tc := range []struct {
		commands [][]string
		out      string
		want     string
	}{
		{[][]string{{"export"}, {"run"}, {"reconcile"}, {"report"}}, readOnly, "is not a directory billsnap may read and write in (permission denied)"},
		{[][]string{{"export"}, {"run"}}, filepath.Join(readOnly, "store"), "its parent " + readOnly + " is not a directory billsnap may read and write in (permission denied)"},
		{[][]string{{"status"}, {"query", "SELECT 1"}, {"serve"}, {"ledger", "verify"}}, unreadable,
			"is not a directory billsnap may read in (permission denied)"},
		{[][]string{{"export"}, {"status"}}, filepath.Join(shut, "store"), "cannot be reached: permission denied on a folder above it"},
	} {
		for _, c := range tc.commands {
			cmd := exec.Command(bin, append(append([]string{}, c...), "--out", tc.out)...)
			cmd.Dir, cmd.Env = dir, []string{e2etest.AsMainEnv + "=1", "HOME=" + dir, "PATH=/usr/bin:/bin"}
			if os.Geteuid() == 0 {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if code := cmd.ProcessState.ExitCode(); code != job.ExitUsage || len(lines) > 2 || !strings.Contains(stderr.String(), "--out "+tc.out+" "+tc.want) {
				t.Errorf("%s --out %s: exit %d (%v), %d lines, want %q:\n%s", c[0], tc.out, code, err, len(lines), tc.want, stderr.String())
			}
		}
	}
	for _, p := range []string{readOnly, unreadable, shut} {
		if entries, _ := os.ReadDir(p); len(entries) > 0 {
			t.Errorf("a command wrote in %s", p)
		}
	}
}

// openTempDir is a temporary folder the user nobody may enter, removed
// after the test.
func openTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "billsnap-permission-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// nobodysBinary is the test binary where the user nobody may run it: a
// hard link in dir (go test's build folder is its builder's alone), or a
// copy when dir is on another file system.
func nobodysBinary(t *testing.T, dir string) string {
	t.Helper()
	exe := e2etest.Binary(t)
	p := filepath.Join(dir, "billsnap")
	if os.Link(exe, p) == nil {
		return p
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// reconcile and report on a store billsnap may read but not write in (a
// read-only folder, as a read-only mount is) exit 2 with one line naming
// --out and why, as run does, before any work: they record their run in
// the store's journal and keep what they found there. The store is left
// as it was.
func TestReconcileAndReportOnAReadOnlyStoreAreAUsageError(t *testing.T) {
	t.Parallel()
	_, from := e2etest.Exported(t, e2etest.ExportedOptions)
	dir := openTempDir(t)
	store := filepath.Join(dir, "store")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e2etest.CopyStore(from, store); err != nil {
		t.Fatal(err)
	}
	if err := filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o444)
		if d.IsDir() {
			mode = 0o555
		}
		return os.Chmod(p, mode)
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(store, func(p string, _ fs.DirEntry, _ error) error { return os.Chmod(p, 0o755) })
	})
	before := treeOf(t, store)
	bin := nobodysBinary(t, dir)
	want := "--out " + store + " is not a directory billsnap may read and write in (permission denied)"
	for _, c := range [][]string{{"reconcile"}, {"report"}, {"run"}} {
		cmd := exec.Command(bin, append(c, "--out", store)...)
		cmd.Dir, cmd.Env = dir, []string{e2etest.AsMainEnv + "=1", "HOME=" + dir, "PATH=/usr/bin:/bin", "BILLSNAP_API_KEY=k", "BILLSNAP_BASE_URL=http://127.0.0.1:1", "BILLSNAP_FRONT_URL=http://127.0.0.1:1"}
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code := cmd.ProcessState.ExitCode(); code != job.ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Errorf("%s on a read-only store: exit %d (%v), %d lines, want exit 2 and one line with %q:\n%s", c[0], code, err, len(lines), want, stderr.String())
		}
	}
	if after := treeOf(t, store); after != before {
		t.Errorf("the store changed:\n%s\nnow:\n%s", before, after)
	}
}

// treeOf lists the files under dir with their sizes and times.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %s\n", p, info.Size(), info.ModTime())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
