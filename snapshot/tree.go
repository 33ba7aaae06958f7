package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/state"
)

// tree is a Parquet tree readers see. Its path (DIR/parquet) is a
// symbolic link to a generation, DIR/.parquet-gen/NNNNNN/, a tree of table
// and partition directories. A snapshot's partitions go into it in place
// (add), each in one rename, and leave it the same way (remove): a change
// costs what it adds or removes, never what the tree holds. A reader sees
// each partition whole or not at all, and a file once in the tree is
// never rewritten, so a file a reader has open stays whole. Which
// snapshots are whole across tables is what the records say
// (snapshots.parquet): the read model's views read only those, and a
// snapshot a run left part-way in is finished by the next (recover).
// The records (runrec.Records) are a tree of generations switched by the
// link, each built whole.
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
	state.SyncDir(filepath.Dir(t.link))
	return nil
}

// add puts the staged tables srcs into the current generation as
// snapshot id's partitions: each src, a directory of one table's files
// named for its table, is renamed into place, so that a reader sees the
// partition whole or not at all. The staged files are durable already;
// their names are made so before the renames, and the renames after.
func (t tree) add(id string, srcs []string) error {
	cur, err := t.current()
	if err != nil || len(srcs) == 0 {
		return err
	}
	state.SyncDirs(srcs)
	var dirs []string
	for _, src := range srcs {
		table := filepath.Join(cur, filepath.Base(src))
		if err := os.MkdirAll(table, 0o755); err != nil {
			return fmt.Errorf("parquet tree: %w", err)
		}
		if err := crashpoint.Err("tree.add"); err != nil {
			return err
		}
		if err := os.Rename(src, filepath.Join(table, partition(id))); err != nil {
			return fmt.Errorf("parquet tree: %w", err)
		}
		crashpoint.Hit("tree.add")
		dirs = append(dirs, table)
	}
	state.SyncDirs(append(dirs, cur, filepath.Dir(srcs[0])))
	return nil
}

// remove takes the partitions of snapshots ids out of the current
// generation: each is renamed out of readers' sight in one step, then
// deleted.
func (t tree) remove(ids []string) error {
	cur, err := t.current()
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
		parts, _ := filepath.Glob(filepath.Join(cur, "*", partition(id)))
		for _, p := range parts {
			table := filepath.Dir(p)
			if err := os.Rename(p, filepath.Join(trash, filepath.Base(table)+"."+id)); err != nil {
				return fmt.Errorf("parquet tree: removing %s: %w", p, err)
			}
			dirs = append(dirs, table)
		}
	}
	state.SyncDirs(dirs)
	return os.RemoveAll(trash)
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
// as in DuckDB's tables: <table>/snapshot_id=<id>/ (readmodel's, whose
// views read them).
const PartitionKey = readmodel.PartitionKey

// partition is the partition directory of snapshot id.
func partition(id string) string { return readmodel.Partition(id) }

// renameOldPartitions renames the partitions of the current generation
// named with the key of an earlier billsnap (migrate.RenameOldPartitions):
// a store written by an earlier billsnap is migrated when opened.
func (t tree) renameOldPartitions() error {
	cur, err := t.current()
	if err != nil {
		return err
	}
	return migrate.RenameOldPartitions(cur, PartitionKey)
}

// Files are the Parquet files of complete snapshot id in the tree, by
// table in the catalogue's order, as the lake publishes them.
func (s *Store) Files(id string) ([]lake.Local, error) {
	var out []lake.Local
	for _, t := range catalog.Tables() {
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
