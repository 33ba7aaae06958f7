package snapshot

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// FileProblem is a Parquet file of a snapshot that is not as the
// snapshot's manifest recorded it when it was published (snapshot_files).
type FileProblem struct {
	Snapshot string
	Path     string // relative to the output directory
	Why      string
}

func (p FileProblem) String() string { return p.Path + ": " + p.Why }

// Checked is what a verification of snapshots' Parquet files found.
type Checked struct {
	Snapshots  int           // snapshots whose files were checked
	Files      int           // files read and hashed
	Bytes      int64         // their bytes
	Unrecorded []string      // snapshots whose manifest records no files (published by an earlier billsnap): not checked
	Differ     []FileProblem // every file that differs, in path order
}

// Err is a TamperedError naming every file that differs, or nil.
func (c Checked) Err() error {
	if len(c.Differ) == 0 {
		return nil
	}
	return &TamperedError{Differ: c.Differ}
}

// TamperedError is a snapshot's store files that do not hash to its
// manifest: what was published has been changed since, and nothing that
// trusts them should go on.
type TamperedError struct{ Differ []FileProblem }

// Error names the first file that differs and how many others do.
func (e *TamperedError) Error() string {
	p := e.Differ[0]
	msg := fmt.Sprintf("snapshot %s: %s does not hash to the snapshot's manifest: %s", p.Snapshot, p.Path, p.Why)
	switch n := len(e.Differ) - 1; {
	case n == 1:
		msg += " (and 1 more file differs: billsnap status --verify names it)"
	case n > 1:
		msg += fmt.Sprintf(" (and %d more files differ: billsnap status --verify names them)", n)
	}
	return msg
}

// VerifyFiles reads and hashes every Parquet file of snapshots ids (nil:
// every complete and incomplete snapshot the state keeps) and compares
// each with the snapshot's manifest: a file whose size or SHA-256
// differs, a file the manifest lists and the store lacks, and a file in a
// snapshot's partition that the manifest does not list, each differ. It
// holds no lock and writes nothing: the state is read from a reading
// (its own DuckDB instance when cfg's store has none open), so a reader
// (status, evidence) may call it while jobs run.
func VerifyFiles(ctx context.Context, cfg storeconfig.Options, ids []string) (Checked, error) {
	at := layout.Dir(cfg.Out)
	tmp, err := os.MkdirTemp("", "billsnap-verify-")
	if err != nil {
		return Checked{}, err
	}
	defer os.RemoveAll(tmp)
	eng := state.NewEngine(stateSettings(cfg.DuckDB), tmp)
	defer eng.Close()
	db, err := eng.OpenReading(at.State())
	if err != nil {
		return Checked{}, fmt.Errorf("billsnap's state: %w", err)
	}
	defer eng.End(ctx, db)
	return verifyFiles(ctx, db, at, at.Under(cfg.Parquet.Dir), ids)
}

// CheckFiles is VerifyFiles of snapshot id alone, as an error: a
// TamperedError naming the files that differ, or nil (also when the
// store no longer keeps the snapshot, or its manifest records no files).
func CheckFiles(cfg storeconfig.Options) func(ctx context.Context, id string) error {
	return func(ctx context.Context, id string) error {
		c, err := VerifyFiles(ctx, cfg, []string{id})
		if err != nil {
			return fmt.Errorf("checking the Parquet files of snapshot %s: %w", id, err)
		}
		return c.Err()
	}
}

// VerifyFiles is the package's VerifyFiles over q, a reading or section
// of this store's state.
func (s *Store) VerifyFiles(ctx context.Context, q state.Querier, ids []string) (Checked, error) {
	return verifyFiles(ctx, q, s.at, s.parquetDir, ids)
}

// verifyFiles is VerifyFiles over the state q of the store at at, whose
// complete snapshots' tree is parquetDir.
func verifyFiles(ctx context.Context, q state.Querier, at layout.Dir, parquetDir string, ids []string) (Checked, error) {
	var c Checked
	snaps, err := keptSnapshots(ctx, q, ids)
	if err != nil {
		return c, err
	}
	recorded, err := recordedFiles(ctx, q, slices.Sorted(maps.Keys(snaps)))
	if err != nil {
		return c, err
	}
	for _, id := range slices.Sorted(maps.Keys(snaps)) {
		dir := parquetDir
		if snaps[id] == StatusIncomplete {
			if exists(at.Staged(id)) {
				continue // not published yet: the next start finishes it
			}
			dir = at.Incomplete()
		}
		if len(recorded[id]) == 0 {
			c.Unrecorded = append(c.Unrecorded, id)
			continue
		}
		c.Snapshots++
		if err := checkSnapshotFiles(ctx, &c, string(at), dir, id, recorded[id]); err != nil {
			return c, err
		}
	}
	slices.SortFunc(c.Differ, func(a, b FileProblem) int { return strings.Compare(a.Path, b.Path) })
	return c, nil
}

// keptSnapshots are the complete and incomplete snapshots among ids (nil:
// all of them), with their status.
func keptSnapshots(ctx context.Context, q state.Querier, ids []string) (map[string]string, error) {
	query, args := "SELECT id, status FROM snapshots WHERE status IN ('complete', 'incomplete')", []any{}
	if ids != nil {
		query, args = query+" AND list_contains(?, id)", []any{ids}
	}
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			return nil, err
		}
		out[id] = status
	}
	return out, rows.Err()
}

// recordedFile is a file as the manifest records it.
type recordedFile struct {
	bytes int64
	sum   string
}

// recordedFiles are the manifest's files of snapshots ids, by snapshot
// and then by <table>/<file>. A state without the table (an earlier
// billsnap's, not opened by this one since) records none.
func recordedFiles(ctx context.Context, q state.Querier, ids []string) (map[string]map[string]recordedFile, error) {
	out := map[string]map[string]recordedFile{}
	var has bool
	err := q.QueryRowContext(ctx, "SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = 'snapshot_files' AND schema_name = 'main'").Scan(&has)
	if err != nil || !has {
		return out, err
	}
	rows, err := q.QueryContext(ctx, "SELECT snapshot_id, table_name, file, bytes, sha256 FROM snapshot_files WHERE list_contains(?, snapshot_id)", ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, table, file string
		var f recordedFile
		if err := rows.Scan(&id, &table, &file, &f.bytes, &f.sum); err != nil {
			return nil, err
		}
		if out[id] == nil {
			out[id] = map[string]recordedFile{}
		}
		out[id][table+"/"+file] = f
	}
	return out, rows.Err()
}

// checkSnapshotFiles hashes snapshot id's files in tree dir (the
// partitions <table>/snapshot_id=<id>/) against want, both ways, and adds
// what it read and what differs to c. Paths are named relative to root.
func checkSnapshotFiles(ctx context.Context, c *Checked, root, dir, id string, want map[string]recordedFile) error {
	found, err := filepath.Glob(filepath.Join(dir, "*", tree.Partition(id), "*.parquet"))
	if err != nil {
		return err
	}
	differ := func(p, why string) {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			rel = p
		}
		c.Differ = append(c.Differ, FileProblem{Snapshot: id, Path: rel, Why: why})
	}
	seen := map[string]bool{}
	for _, p := range found {
		key := filepath.Base(filepath.Dir(filepath.Dir(p))) + "/" + filepath.Base(p)
		seen[key] = true
		w, listed := want[key]
		if !listed {
			differ(p, "in the snapshot's partition, and its manifest does not list it")
			continue
		}
		sum, n, err := hashFile(ctx, p)
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			differ(p, err.Error())
			continue
		}
		c.Files++
		c.Bytes += n
		if sum != w.sum || n != w.bytes {
			differ(p, fmt.Sprintf("SHA-256 %s (%d bytes), and the manifest records %s (%d bytes)", sum, n, w.sum, w.bytes))
		}
	}
	for key := range want {
		if !seen[key] {
			table, file, _ := strings.Cut(key, "/")
			differ(filepath.Join(dir, table, tree.Partition(id), file), "the manifest lists it, and the store has no such file")
		}
	}
	return nil
}

// hashFile is the hex SHA-256 and size of the regular file at p (a link
// is not followed: it is not what was published).
func hashFile(ctx context.Context, p string) (string, int64, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", 0, err
	}
	if !fi.Mode().IsRegular() {
		return "", 0, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	return fileutil.SHA256(ctx, f)
}
