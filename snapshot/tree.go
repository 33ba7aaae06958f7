package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/lake"
)

// tree is the Parquet tree readers see. Its path (DIR/parquet) is a
// symbolic link to one generation, DIR/.parquet-gen/NNNNNN/, a tree of
// table and partition directories whose files are hard links. A change
// (publishing a snapshot, pruning one, removing strays) builds the next
// generation beside the current one — links to the files kept, plus the
// new ones — and then points the link at it with one rename. A rename is
// the only step a file system makes atomic across many directories, so a
// reader sees a whole snapshot or none of it, whenever the process dies;
// the promise that a reader never sees half a snapshot holds through a crash,
// not only until the next start. Files are never rewritten, only linked,
// so a file a reader has open stays whole.
type tree struct {
	link string // DIR/parquet
	gens string // DIR/.parquet-gen
}

func newTree(link string) tree {
	return tree{link: link, gens: filepath.Join(filepath.Dir(link), "."+filepath.Base(link)+"-gen")}
}

// current is the generation the link points at. A Parquet tree that is a
// plain directory (from a billsnap before generations) becomes the first
// generation; a missing link is made, pointing at the newest generation,
// or at a new empty one.
func (t tree) current() (string, error) {
	fi, err := os.Lstat(t.link)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(t.link)
		if err != nil {
			return "", fmt.Errorf("parquet tree: %w", err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(t.link), target)
		}
		return target, nil
	case err == nil && fi.IsDir():
		gen := t.gen(1)
		if err := os.MkdirAll(t.gens, 0o755); err != nil {
			return "", fmt.Errorf("parquet tree: %w", err)
		}
		if err := os.Rename(t.link, gen); err != nil {
			return "", fmt.Errorf("parquet tree: moving %s to %s: %w", t.link, gen, err)
		}
		return gen, t.point(gen)
	case errors.Is(err, fs.ErrNotExist):
		gen := t.newest()
		if err := os.MkdirAll(gen, 0o755); err != nil {
			return "", fmt.Errorf("parquet tree: %w", err)
		}
		return gen, t.point(gen)
	case err == nil:
		return "", fmt.Errorf("parquet tree: %s is neither a directory nor a link", t.link)
	}
	return "", fmt.Errorf("parquet tree: %w", err)
}

// gen is the directory of generation n.
func (t tree) gen(n int) string { return filepath.Join(t.gens, fmt.Sprintf("%06d", n)) }

// newest is the newest generation there is, or the first one.
func (t tree) newest() string {
	names, _ := filepath.Glob(filepath.Join(t.gens, "[0-9]*"))
	if len(names) == 0 {
		return t.gen(1)
	}
	sort.Strings(names)
	return names[len(names)-1]
}

// point makes the link point at gen, atomically.
func (t tree) point(gen string) error {
	rel, err := filepath.Rel(filepath.Dir(t.link), gen)
	if err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	tmp := t.link + ".next"
	os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	if err := os.Rename(tmp, t.link); err != nil {
		return fmt.Errorf("parquet tree: pointing %s at %s: %w", t.link, gen, err)
	}
	syncDir(filepath.Dir(t.link))
	return nil
}

// change builds the next generation from the current one, lets edit change
// it, and shows it to readers; the old generation is then removed. On error
// the current generation stays as it was and the next one is removed.
func (t tree) change(edit func(next string) error) error {
	cur, err := t.current()
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(filepath.Base(cur))
	if err != nil {
		return fmt.Errorf("parquet tree: %s is not a generation", cur)
	}
	next := t.gen(n + 1)
	if err := t.build(cur, next, edit); err != nil {
		os.RemoveAll(next)
		return err
	}
	crashpoint.Hit("tree.built")
	if err := t.point(next); err != nil {
		os.RemoveAll(next)
		return err
	}
	crashpoint.Hit("tree.swapped")
	t.removeOthers(next)
	return nil
}

// build makes next a copy of cur in hard links, edited by edit.
func (t tree) build(cur, next string, edit func(string) error) error {
	if err := os.RemoveAll(next); err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	if err := linkTree(cur, next); err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	if err := edit(next); err != nil {
		return err
	}
	return syncDirs(next)
}

// removeOthers deletes every generation but keep: older ones, and one
// half built when a run died.
func (t tree) removeOthers(keep string) {
	names, _ := filepath.Glob(filepath.Join(t.gens, "*"))
	for _, n := range names {
		if n != keep {
			os.RemoveAll(n)
		}
	}
	os.Remove(t.link + ".next")
}

// partitions lists the snapshots in the current generation, with the
// tables each has.
func (t tree) partitions() (map[string][]string, error) {
	cur, err := t.current()
	if err != nil {
		return nil, err
	}
	dirs, _ := filepath.Glob(filepath.Join(cur, "*", PartitionKey+"=*"))
	out := map[string][]string{}
	for _, d := range dirs {
		id := strings.TrimPrefix(filepath.Base(d), PartitionKey+"=")
		out[id] = append(out[id], filepath.Base(filepath.Dir(d)))
	}
	return out, nil
}

// PartitionKey names the snapshot in the Parquet tree's Hive partitions,
// as in DuckDB's tables: <table>/snapshot_id=<id>/.
const PartitionKey = "snapshot_id"

// partition is the partition directory of snapshot id.
func partition(id string) string { return PartitionKey + "=" + id }

// oldPartitionKey is the key of a tree written before the key was the
// DuckDB column's name.
const oldPartitionKey = "snapshot"

// renameOldPartitions gives every partition of the current generation
// named with the old key the key readers filter on, in one change of the
// tree: a store written by an earlier billsnap is migrated when opened.
func (t tree) renameOldPartitions() error {
	cur, err := t.current()
	if err != nil {
		return err
	}
	if old, _ := filepath.Glob(filepath.Join(cur, "*", oldPartitionKey+"=*")); len(old) == 0 {
		return nil
	}
	return t.change(func(next string) error {
		old, _ := filepath.Glob(filepath.Join(next, "*", oldPartitionKey+"=*"))
		for _, d := range old {
			id := strings.TrimPrefix(filepath.Base(d), oldPartitionKey+"=")
			if err := os.Rename(d, filepath.Join(filepath.Dir(d), partition(id))); err != nil {
				return fmt.Errorf("parquet tree: renaming %s: %w", d, err)
			}
		}
		return nil
	})
}

// linkTree recreates the directories of src under dst and hard-links its
// files.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return linkFile(path, filepath.Join(dst, rel))
	})
}

// linkFile hard-links one file of a generation.
func linkFile(src, dst string) error {
	if err := crashpoint.Err("tree.link"); err != nil {
		return err
	}
	if err := os.Link(src, dst); err != nil {
		return err
	}
	crashpoint.Hit("tree.link")
	return nil
}

// syncDirs makes the directories of a new generation durable before the
// link points at it.
func syncDirs(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return err
	})
	syncAll(dirs)
	return err
}

// syncAll syncs the directories, several at once: the file system's
// journal then commits several in one write, where one after the other
// each waits for its own (a generation of a year's tree has thousands).
func syncAll(dirs []string) {
	var g errgroup.Group
	g.SetLimit(syncers)
	for _, d := range dirs {
		g.Go(func() error { syncDir(d); return nil })
	}
	g.Wait()
}

// syncers is how many directories syncAll syncs at once.
const syncers = 8

// Files are the Parquet files of complete snapshot id in the tree, by
// table in the catalogue's order, as the lake publishes them.
func (s *Store) Files(id string) ([]lake.Local, error) {
	var out []lake.Local
	for _, t := range tables {
		paths, err := filepath.Glob(filepath.Join(s.parquetDir, t.Name, PartitionKey+"="+id, "*.parquet"))
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			out = append(out, lake.Local{Table: t.Name, Path: p})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("snapshot %s has no Parquet in %s", id, s.parquetDir)
	}
	return out, nil
}
