package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// TestVerifyFilesNamesEveryFileThatDiffersFromTheManifest: the manifest
// records every Parquet file as it was written, the files of a fresh
// snapshot hash to it, and a file changed, added or removed since is
// named.
func TestVerifyFilesNamesEveryFileThatDiffersFromTheManifest(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 12}, "")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := VerifyFiles(ctx, cfg.Options, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Snapshots != 1 || c.Files < 15 || c.Bytes == 0 || len(c.Differ) != 0 || len(c.Unrecorded) != 0 {
		t.Fatalf("a fresh snapshot: %+v", c)
	}
	part := func(table string) string {
		return filepath.Join(cfg.Out, "parquet", table, "snapshot_id="+sum.ID, "part-00000.parquet")
	}
	other, err := os.ReadFile(part("contacts"))
	if err != nil {
		t.Fatal(err)
	}
	// A valid Parquet file, another table's, in place of the customers'.
	if err := os.WriteFile(part("customers")+".new", other, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(part("customers")+".new", part("customers")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(part("tax_rules")); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(filepath.Dir(part("invoices")), "part-09999.parquet")
	if err := os.WriteFile(extra, other, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = VerifyFiles(ctx, cfg.Options, []string{sum.ID})
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, p := range c.Differ {
		named = append(named, p.String())
	}
	got := strings.Join(named, "\n")
	for _, want := range []string{
		"parquet/customers/snapshot_id=" + sum.ID + "/part-00000.parquet: SHA-256 ",
		"parquet/invoices/snapshot_id=" + sum.ID + "/part-09999.parquet: in the snapshot's partition, and its manifest does not list it",
		"parquet/tax_rules/snapshot_id=" + sum.ID + "/part-00000.parquet: the manifest lists it, and the store has no such file",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q among what differs:\n%s", want, got)
		}
	}
	if len(c.Differ) != 3 {
		t.Errorf("want 3 files named, got:\n%s", got)
	}
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "(and 2 more files differ") {
		t.Errorf("Err: %v", err)
	}
}
