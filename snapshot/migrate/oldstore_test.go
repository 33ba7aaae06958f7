package migrate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/snapshot/tree"
)

// A tree of an earlier billsnap, partitioned by "snapshot=", is
// partitioned by the key readers filter on, its files kept; a partition
// of the key already is left as it is.
func TestOldPartitionsAreRenamed(t *testing.T) {
	t.Parallel()
	link := filepath.Join(t.TempDir(), "parquet") // a plain directory, as before generations
	cur := link
	for _, p := range []string{"customers/snapshot=A/part-00000.parquet", "invoices/snapshot_id=B/part-00000.parquet"} {
		path := filepath.Join(cur, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RenameOldPartitions(tree.New(link)); err != nil {
		t.Fatal(err)
	}
	got, _ := filepath.Glob(filepath.Join(cur, "*", "*", "*.parquet"))
	want := []string{filepath.Join(cur, "customers/snapshot_id=A/part-00000.parquet"), filepath.Join(cur, "invoices/snapshot_id=B/part-00000.parquet")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("after the rename: %q, want %q", got, want)
	}
}
