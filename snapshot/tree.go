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
// symbolic link to one generation, DIR/.parquet-gen/NNNNNN/, a directory
// a table whose entries are symbolic links, one a partition, to the
// partition's directory of files, DIR/.parquet-gen/d/<table>/<id>/, which
// is written once and never changed. (The links' targets are kept under
// 60 bytes, which ext4 stores in the link's inode: a longer one takes a
// block of its own, and made a change of a year's tree ten times slower.) A change (publishing a snapshot,
// pruning one, removing strays) builds the next generation beside the
// current one — a link to each partition kept, plus the new ones — and
// then points the tree's link at it with one rename. A rename is the only
// step a file system makes atomic across many directories, so a reader
// sees a whole snapshot or none of it, whenever the process dies; the
// promise that a reader never sees half a snapshot holds through a crash,
// not only until the next start. Files are never rewritten, so a file a
// reader has open stays whole. A change costs a link a partition kept
// (not a directory and a link a file, as when generations held the
// files themselves, which a change turns into links).
type tree struct {
	link string // DIR/parquet
	gens string // DIR/.parquet-gen
	data string // DIR/.parquet-gen/d
}

func newTree(link string) tree {
	gens := filepath.Join(filepath.Dir(link), "."+filepath.Base(link)+"-gen")
	return tree{link: link, gens: gens, data: filepath.Join(gens, "d")}
}

// dataDir is where the files of a table's partition are: named by the
// snapshot's ID alone (a partition of another key by the partition's
// name), to keep the links short.
func (t tree) dataDir(table, part string) string {
	return filepath.Join(t.data, table, strings.TrimPrefix(part, PartitionKey+"="))
}

// partOf is the partition whose data is the directory called name.
func partOf(name string) string {
	if strings.Contains(name, "=") {
		return name
	}
	return partition(name)
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

// build makes next a copy of cur, its partitions linked, edited by edit.
func (t tree) build(cur, next string, edit func(string) error) error {
	if err := os.RemoveAll(next); err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	if err := t.linkGen(cur, next); err != nil {
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
		if n != keep && n != t.data {
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
			table := filepath.Base(filepath.Dir(d))
			if err := t.place(next, table, id, t.dataDir(table, filepath.Base(d))); err != nil {
				return fmt.Errorf("parquet tree: renaming %s: %w", d, err)
			}
			if err := os.Remove(d); err != nil {
				return fmt.Errorf("parquet tree: renaming %s: %w", d, err)
			}
		}
		return nil
	})
}

// linkGen makes next's table directories, with a link to the data of
// each partition cur has. A partition that is a directory in cur (a
// generation written before partitions were links) has its files
// hard-linked into the data first.
func (t tree) linkGen(cur, next string) error {
	tables, err := os.ReadDir(cur)
	if err == nil {
		err = os.MkdirAll(next, 0o755)
	}
	if err != nil {
		return err
	}
	for _, tb := range tables {
		if !tb.IsDir() {
			continue
		}
		parts, err := os.ReadDir(filepath.Join(cur, tb.Name()))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(next, tb.Name()), 0o755); err != nil {
			return err
		}
		for _, p := range parts {
			if p.IsDir() {
				if err := t.adoptPartition(filepath.Join(cur, tb.Name(), p.Name()), tb.Name(), p.Name()); err != nil {
					return err
				}
			}
			if err := t.linkPartition(next, tb.Name(), p.Name()); err != nil {
				return err
			}
		}
	}
	return nil
}

// adoptPartition makes the files of partition directory src the data of
// the table's partition part (hard links), replacing what a change cut
// short left there.
func (t tree) adoptPartition(src, table, part string) error {
	dst := t.dataDir(table, part)
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := linkTree(src, dst); err != nil {
		return err
	}
	syncDir(dst)
	syncDir(filepath.Dir(dst))
	return nil
}

// linkPartition links the table's partition part in generation gen to its
// data, relatively, so that the store can be moved.
func (t tree) linkPartition(gen, table, part string) error {
	from := filepath.Join(gen, table)
	rel, err := filepath.Rel(from, t.dataDir(table, part))
	if err != nil {
		return err
	}
	return os.Symlink(rel, filepath.Join(from, part))
}

// place makes the files of directory src the data of snapshot id's
// partition of table, and links it in generation next: the edit of a
// change that publishes.
func (t tree) place(next, table, id, src string) error {
	if err := t.adoptPartition(src, table, partition(id)); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(next, table), 0o755); err != nil {
		return err
	}
	return t.linkPartition(next, table, partition(id))
}

// sweepData removes the data of every partition the current generation
// does not link: what a change removed and a crash kept it from deleting,
// or what a change cut short placed.
func (t tree) sweepData() error {
	cur, err := t.current()
	if err != nil {
		return err
	}
	tables, err := os.ReadDir(t.data)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	for _, tb := range tables {
		parts, _ := os.ReadDir(filepath.Join(t.data, tb.Name()))
		for _, p := range parts {
			if _, err := os.Lstat(filepath.Join(cur, tb.Name(), partOf(p.Name()))); errors.Is(err, fs.ErrNotExist) {
				os.RemoveAll(filepath.Join(t.data, tb.Name(), p.Name()))
			}
		}
	}
	return nil
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

// syncAll syncs the directories at once: the file system's journal then
// commits several in one write where one after the other each waits for
// its own.
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
