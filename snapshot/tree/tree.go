// Package tree is a tree of generations readers see through a link: a
// Parquet tree (DIR/parquet, DIR/incomplete) or the records
// (DIR/records).
//
// A Parquet tree's snapshots go in and out of the current generation in
// place, a partition in one rename ([Tree.Add], [Tree.Remove]); the records
// get a new generation, which the link is switched to ([Tree.Point]). A
// plain directory left by a billsnap from before generations is adopted as
// the first generation.
//
// [PartitionKey] and [Partition] are the Hive partition key of a Parquet
// tree, which the read model's views read. It imports no DuckDB, so its
// tests link none.
package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/internal/fileutil"
)

// Tree is a Parquet tree readers see. Its path (DIR/parquet) is a
// symbolic link to a generation, DIR/.parquet-gen/NNNNNN/, a tree of table
// and partition directories. A snapshot's partitions go into it in place
// (Add), each in one rename, and leave it the same way (Remove): a change
// costs what it adds or removes, never what the tree holds. A reader sees
// each partition whole or not at all, and a file once in the tree is
// never rewritten, so a file a reader has open stays whole. Which
// snapshots are whole across tables is what the records say
// (snapshots.parquet): the read model's views read only those, and a
// snapshot a run left part-way in is finished by the next (recover).
// The records (runrec.Records) are a tree of generations switched by the
// link, each built whole.
type Tree struct {
	Link string // DIR/parquet
	gens string // DIR/.parquet-gen
}

// PartitionKey names the snapshot in a Parquet tree's Hive partitions,
// as in DuckDB's tables (and the read model's views): <table>/snapshot_id=<id>/.
const PartitionKey = "snapshot_id"

// Partition is the partition directory of snapshot id.
func Partition(id string) string { return PartitionKey + "=" + id }

// New is the tree whose link is at link; its generations are beside it.
func New(link string) Tree {
	return Tree{Link: link, gens: filepath.Join(filepath.Dir(link), "."+filepath.Base(link)+"-gen")}
}

// Current is the generation the link points at. A Parquet tree that is a
// plain directory (from a billsnap before generations) becomes the first
// generation; a missing link is made, pointing at the newest generation,
// or at a new empty one.
func (t Tree) Current() (string, error) {
	fi, err := os.Lstat(t.Link)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(t.Link)
		if err != nil {
			return "", fmt.Errorf("parquet tree: %w", err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(t.Link), target)
		}
		return target, nil
	case err == nil && fi.IsDir():
		gen := t.Gen(1)
		if err := os.MkdirAll(t.gens, 0o755); err != nil {
			return "", fmt.Errorf("parquet tree: %w", err)
		}
		if err := os.Rename(t.Link, gen); err != nil {
			return "", fmt.Errorf("parquet tree: moving %s to %s: %w", t.Link, gen, err)
		}
		return gen, t.Point(gen)
	case errors.Is(err, fs.ErrNotExist):
		gen := t.newest()
		if err := os.MkdirAll(gen, 0o755); err != nil {
			return "", fmt.Errorf("parquet tree: %w", err)
		}
		return gen, t.Point(gen)
	case err == nil:
		return "", fmt.Errorf("parquet tree: %s is neither a directory nor a link", t.Link)
	}
	return "", fmt.Errorf("parquet tree: %w", err)
}

// Gen is the directory of generation n.
func (t Tree) Gen(n int) string { return filepath.Join(t.gens, fmt.Sprintf("%06d", n)) }

// newest is the newest generation there is, or the first one.
func (t Tree) newest() string {
	names, _ := filepath.Glob(filepath.Join(t.gens, "[0-9]*"))
	if len(names) == 0 {
		return t.Gen(1)
	}
	sort.Strings(names)
	return names[len(names)-1]
}

// Point makes the link point at gen, atomically.
func (t Tree) Point(gen string) error {
	rel, err := filepath.Rel(filepath.Dir(t.Link), gen)
	if err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	tmp := t.Link + ".next"
	os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	if err := os.Rename(tmp, t.Link); err != nil {
		return fmt.Errorf("parquet tree: pointing %s at %s: %w", t.Link, gen, err)
	}
	fileutil.SyncDir(filepath.Dir(t.Link))
	return nil
}

// Add puts the staged tables srcs into the current generation as
// snapshot id's partitions: each src, a directory of one table's files
// named for its table, is renamed into place, so that a reader sees the
// partition whole or not at all. The staged files are durable already;
// their names are made so before the renames, and the renames after.
func (t Tree) Add(id string, srcs []string) error {
	cur, err := t.Current()
	if err != nil || len(srcs) == 0 {
		return err
	}
	fileutil.SyncDirs(srcs)
	var dirs []string
	for _, src := range srcs {
		table := filepath.Join(cur, filepath.Base(src))
		if err := os.MkdirAll(table, 0o755); err != nil {
			return fmt.Errorf("parquet tree: %w", err)
		}
		if err := crashpoint.Err("tree.add"); err != nil {
			return err
		}
		if err := os.Rename(src, filepath.Join(table, Partition(id))); err != nil {
			return fmt.Errorf("parquet tree: %w", err)
		}
		crashpoint.Hit("tree.add")
		dirs = append(dirs, table)
	}
	fileutil.SyncDirs(append(dirs, cur, filepath.Dir(srcs[0])))
	return nil
}

// Remove takes the partitions of snapshots ids out of the current
// generation: each is renamed out of readers' sight in one step, then
// deleted.
func (t Tree) Remove(ids []string) error {
	cur, err := t.Current()
	if err != nil || len(ids) == 0 {
		return err
	}
	trash := filepath.Join(t.gens, ".removed")
	if err := os.RemoveAll(trash); err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	if err := os.MkdirAll(trash, 0o755); err != nil {
		return fmt.Errorf("parquet tree: %w", err)
	}
	var dirs []string
	for _, id := range ids {
		parts, _ := filepath.Glob(filepath.Join(cur, "*", Partition(id)))
		for _, p := range parts {
			table := filepath.Dir(p)
			if err := os.Rename(p, filepath.Join(trash, filepath.Base(table)+"."+id)); err != nil {
				return fmt.Errorf("parquet tree: removing %s: %w", p, err)
			}
			dirs = append(dirs, table)
		}
	}
	fileutil.SyncDirs(dirs)
	return os.RemoveAll(trash)
}

// RemoveOthers deletes every generation but keep: older ones, and one
// half built when a run died.
func (t Tree) RemoveOthers(keep string) {
	names, _ := filepath.Glob(filepath.Join(t.gens, "*"))
	for _, n := range names {
		if n != keep {
			os.RemoveAll(n)
		}
	}
	os.Remove(t.Link + ".next")
}

// Partitions lists the snapshots in the current generation, with the
// tables each has.
func (t Tree) Partitions() (map[string][]string, error) {
	cur, err := t.Current()
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
