package tree

import (
	"os"
	"path/filepath"
	"testing"
)

// A Parquet tree of an older billsnap (a plain directory) becomes the
// first generation; its files stay where readers look.
func TestTreeAdoptsAPlainDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "parquet", "customers", "snapshot=A", "part-00000.parquet")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("A"), 0o644)
	tr := New(filepath.Join(dir, "parquet"))
	cur, err := tr.Current()
	if err != nil {
		t.Fatal(err)
	}
	if cur != filepath.Join(dir, ".parquet-gen", "000001") {
		t.Errorf("current generation %s", cur)
	}
	if fi, err := os.Lstat(tr.Link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the tree is not a link: %v %v", fi, err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "A" {
		t.Errorf("reading through the link: %q %v", b, err)
	}
}

// A snapshot's partitions go into the tree and leave it in place, each
// in one rename: the generation stays the same, a file added is the
// staged file itself (moved, not copied), and a removal leaves nothing
// behind.
func TestTreeAddsAndRemovesPartitionsInPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr := New(filepath.Join(dir, "parquet"))
	stage := func(id string) []string {
		var srcs []string
		for _, table := range []string{"customers", "invoices"} {
			p := filepath.Join(dir, ".staging", id, table)
			os.MkdirAll(p, 0o755)
			os.WriteFile(filepath.Join(p, "part-00000.parquet"), []byte(id), 0o644)
			srcs = append(srcs, p)
		}
		return srcs
	}
	staged, _ := os.Stat(filepath.Join(dir, ".staging", "A", "customers", "part-00000.parquet"))
	if err := tr.Add("A", stage("A")); err != nil {
		t.Fatal(err)
	}
	added, err := os.Stat(filepath.Join(tr.Link, "customers", "snapshot_id=A", "part-00000.parquet"))
	if err != nil || (staged != nil && !os.SameFile(staged, added)) {
		t.Errorf("the staged file is not the one in the tree: %v", err)
	}
	if err := tr.Add("B", []string{filepath.Join(dir, ".staging", "B", "nothing")}); err == nil {
		t.Error("adding a partition that is not staged succeeded")
	}
	if err := tr.Add("C", stage("C")); err != nil {
		t.Fatal(err)
	}
	if err := tr.Remove([]string{"A"}); err != nil {
		t.Fatal(err)
	}
	parts, _ := tr.Partitions()
	if len(parts) != 1 || len(parts["C"]) != 2 {
		t.Errorf("after adding A and C and removing A readers see %v", parts)
	}
	if gens, _ := filepath.Glob(filepath.Join(dir, ".parquet-gen", "*")); len(gens) != 1 || filepath.Base(gens[0]) != "000001" {
		t.Errorf("generations left: %v", gens)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".parquet-gen", ".*")); len(left) != 0 {
		t.Errorf("left after the removal: %v", left)
	}
}
