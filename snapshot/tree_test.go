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
	if gens, _ := filepath.Glob(filepath.Join(dir, ".parquet-gen", "[0-9]*")); len(gens) != 1 || filepath.Base(gens[0]) != "000003" {
		t.Errorf("generations left: %v", gens)
	}
	if st := after.Sys().(*syscall.Stat_t); st.Nlink != 1 {
		t.Errorf("the kept file has %d links; the old generation was not removed", st.Nlink)
	}
}

// A generation's partitions are relative links to data written once: a
// change links each kept partition again and copies or links no file, the
// data of a partition a change removes is deleted with it, and a store
// moved elsewhere reads the same.
func TestTreePartitionsAreLinksToDataWrittenOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr := newTree(filepath.Join(dir, "store", "parquet"))
	staged := func(id string) string {
		src := filepath.Join(dir, "staging", id)
		os.MkdirAll(src, 0o755)
		os.WriteFile(filepath.Join(src, "part-00000.parquet"), []byte(id), 0o644)
		return src
	}
	for _, id := range []string{"A", "B"} {
		if err := tr.change(func(next string) error { return tr.place(next, "customers", id, staged(id)) }); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(filepath.Join(dir, "staging"))
	cur, _ := tr.current()
	for _, id := range []string{"A", "B"} {
		entry := filepath.Join(cur, "customers", partition(id))
		target, err := os.Readlink(entry)
		if err != nil || filepath.IsAbs(target) {
			t.Errorf("partition %s in the generation: %q %v; want a relative link", id, target, err)
		}
		fi, err := os.Stat(filepath.Join(entry, "part-00000.parquet"))
		if err != nil || fi.Sys().(*syscall.Stat_t).Nlink != 1 {
			t.Errorf("partition %s's file: %v, links %v; want one name, the data's", id, err, fi)
		}
	}
	// The longest table and a second snapshot of a second: a link that
	// ext4 keeps in its inode.
	gen := filepath.Join(tr.gens, "000099")
	os.MkdirAll(filepath.Join(gen, "product_plan_charge_pricings"), 0o755)
	if err := tr.linkPartition(gen, "product_plan_charge_pricings", partition("2026-11-25T210205Z-2")); err != nil {
		t.Fatal(err)
	}
	if target, _ := os.Readlink(filepath.Join(gen, "product_plan_charge_pricings", partition("2026-11-25T210205Z-2"))); len(target) >= 60 {
		t.Errorf("a partition's link is %d bytes: %s", len(target), target)
	}
	os.RemoveAll(gen)
	if err := removePartitions(tr, []string{"A"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tr.dataDir("customers", partition("A"))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the data of a removed partition: %v", err)
	}
	os.Rename(filepath.Join(dir, "store"), filepath.Join(dir, "moved"))
	if b, err := os.ReadFile(filepath.Join(dir, "moved", "parquet", "customers", partition("B"), "part-00000.parquet")); string(b) != "B" {
		t.Errorf("the moved store reads %q %v", b, err)
	}
}

// Data no generation links (a change cut short after it placed, or
// before it deleted what it removed) is swept away.
func TestTreeSweepsDataNoGenerationLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr := newTree(filepath.Join(dir, "parquet"))
	if err := tr.change(func(next string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	stray := tr.dataDir("customers", partition("A"))
	os.MkdirAll(stray, 0o755)
	os.WriteFile(filepath.Join(stray, "part-00000.parquet"), []byte("A"), 0o644)
	if err := tr.sweepData(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stray data: %v", err)
	}
}
