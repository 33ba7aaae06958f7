package store

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
)

// status and query only read: after them every file and directory of the
// store is as it was, its size and modification time included.
func TestStatusAndQueryWriteNothing(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Reconciled(t, e2etest.ExportedOptions)
	before := treeState(t, dir)
	for _, args := range [][]string{{"status", "--out", dir}, {"query", "--out", dir, "SELECT count(*) FROM findings"}} {
		if code, _, stderr := e2etest.CLI(t, srv, args...); code != 0 {
			t.Fatalf("%s: %d %s", args[0], code, stderr)
		}
	}
	if after := treeState(t, dir); after != before {
		t.Errorf("status and query changed the store:\nbefore %s\nafter  %s", before, after)
	}
}

// treeState is every entry under dir with its size and modification time.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, err := d.Info()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %d\n", strings.TrimPrefix(p, dir), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	return b.String()
}
