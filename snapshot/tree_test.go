package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
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
	tr := newTree(filepath.Join(dir, "parquet"))
	cur, err := tr.current()
	if err != nil {
		t.Fatal(err)
	}
	if cur != filepath.Join(dir, ".parquet-gen", "000001") {
		t.Errorf("current generation %s", cur)
	}
	if fi, err := os.Lstat(tr.link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the tree is not a link: %v %v", fi, err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "A" {
		t.Errorf("reading through the link: %q %v", b, err)
	}
}

// A change either shows readers the whole next generation or leaves the
// current one as it was; files are linked, not copied.
func TestTreeChangeIsAllOrNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr := newTree(filepath.Join(dir, "parquet"))
	add := func(id string) func(string) error {
		return func(next string) error {
			p := filepath.Join(next, "customers", "snapshot_id="+id)
			os.MkdirAll(p, 0o755)
			return os.WriteFile(filepath.Join(p, "part-00000.parquet"), []byte(id), 0o644)
		}
	}
	if err := tr.change(add("A")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(filepath.Join(tr.link, "customers", "snapshot_id=A", "part-00000.parquet"))
	full := errors.New("no space left")
	err := tr.change(func(next string) error {
		add("B")(next)
		return full
	})
	if !errors.Is(err, full) {
		t.Fatalf("a failed change returned %v", err)
	}
	parts, _ := tr.partitions()
	if len(parts) != 1 || len(parts["A"]) != 1 {
		t.Errorf("after a failed change readers see %v", parts)
	}
	if err := tr.change(add("C")); err != nil {
		t.Fatal(err)
	}
	parts, _ = tr.partitions()
	if len(parts) != 2 || parts["A"] == nil || parts["C"] == nil {
		t.Errorf("after a change readers see %v", parts)
	}
	after, _ := os.Stat(filepath.Join(tr.link, "customers", "snapshot_id=A", "part-00000.parquet"))
	if !os.SameFile(before, after) {
		t.Error("a kept file was copied, not linked")
	}
	if gens, _ := filepath.Glob(filepath.Join(dir, ".parquet-gen", "*")); len(gens) != 1 || filepath.Base(gens[0]) != "000003" {
		t.Errorf("generations left: %v", gens)
	}
	if st := after.Sys().(*syscall.Stat_t); st.Nlink != 1 {
		t.Errorf("the kept file has %d links; the old generation was not removed", st.Nlink)
	}
}
