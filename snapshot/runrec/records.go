package runrec

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/history"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// The records are billsnap's own tables as readers see them, read by the
// read model's views of the same names. DIR/records is a link to a
// generation, switched in one rename like the Parquet tree's: a publish
// writes the small tables whole into a new generation, so a reader sees
// one publish's records whole or not at all. What grows with the history
// kept is written once, in a file a snapshot or a run, in folders under
// DIR/.billsnap/history/ that every generation links to (a symbolic link
// each): a publish writes only the files of what it added, and the views
// read of them only what the generation's small tables list (the
// snapshots, the index of run files), so a file written by a section that
// did not commit, or retired and not yet deleted, is in no view.
//
//	snapshots                                    the snapshots (the manifest's status)
//	snapshot_tables/, snapshot_fields/           the manifest: a file a snapshot
//	reconciliations, reconciliation_totals       reconcile's
//	field_ids                                    the catalogue of columns' field IDs
//	runs                                         the journal, as it was then
//	run_files                                    the index of the run records' files
//	findings/, unjudged/, rechecks/              the run records (runrec): a file a run

// Records are the records of an output directory: what a publish writes
// of the state and the journal for readers (Write) into a generation
// (Build, Show, Drop), and the read model's views of them (Views).
type Records struct {
	at   layout.Dir
	gens tree.Tree // DIR/records and its generations
	log  *slog.Logger
	now  func() time.Time
}

// NewRecords is the records of output directory at; now is the clock
// the journal's runs are read by (one killed is read as killed).
func NewRecords(at layout.Dir, log *slog.Logger, now func() time.Time) Records {
	return Records{at: at, gens: tree.New(at.Records()), log: log, now: now}
}

// RecordTables are the state's tables published as records, in order.
func RecordTables() []string { return slices.Clone(recordTables) }

var recordTables = []string{"snapshots", "snapshot_tables", "snapshot_fields", "reconciliations", "reconciliation_totals", "field_ids", "history_steps"}

// snapshotRecords are the record tables published in a file a snapshot.
var snapshotRecords = []string{"snapshot_tables", "snapshot_fields"}

// runsRecord is the journal's table among the records, runFilesRecord the
// index of the run files.
const (
	runsRecord     = "runs"
	runFilesRecord = "run_files"
)

// Write writes the records from the state db (in a section) and the
// journal into generation next, to be shown by its link once the state
// commits: the small record tables, the files of the snapshots that have
// none, and the links to the folders written once. cur, the current
// generation, is made ready first (ready).
func (s Records) Write(ctx context.Context, db *sql.DB, cur, next string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := s.ready(ctx, conn, cur); err != nil {
		return err
	}
	if err := s.loadRuns(ctx, conn, cur); err != nil {
		return err
	}
	var written []string
	for _, t := range recordNames() {
		// next is seen by no reader before the link is switched to it: its
		// files are written in place, and made durable together.
		q := fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", recordQuery(t), state.SQLString(recordFile(next, t)))
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
		written = append(written, recordFile(next, t))
	}
	if err := fileutil.SyncFiles(written); err != nil {
		return err
	}
	if err := s.writeSnapshotRecords(ctx, conn); err != nil {
		return err
	}
	return s.linkFolders(cur, next)
}

// Ready gives the current generation what the read model's views read
// through the link, where it has not: an empty file of each small
// record table, the folders written once (each with its empty file) and
// its links to them. The views can then be made before the link is
// switched to the next generation, and while it is written (Build).
// db is the state, in a section.
func (s Records) Ready(ctx context.Context, db *sql.DB) error {
	cur, err := s.gens.Current()
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return s.ready(ctx, conn, cur)
}

// ready is Ready on conn, for generation cur.
func (s Records) ready(ctx context.Context, conn *sql.Conn, cur string) error {
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE runs ("+runsColumns+")"); err != nil {
		return err
	}
	curChanged := false
	for _, t := range recordNames() {
		if _, err := os.Stat(recordFile(cur, t)); err != nil {
			if err := state.CopyTo(ctx, conn, recordQuery(t)+" LIMIT 0", recordFile(cur, t)); err != nil {
				return err
			}
			curChanged = true
		}
	}
	if curChanged {
		fileutil.SyncDir(cur)
	}
	for _, t := range snapshotRecords {
		if _, err := s.recordFolder(ctx, conn, t, "SELECT * FROM "+t+" LIMIT 0"); err != nil {
			return err
		}
	}
	for _, k := range Kinds() {
		if _, err := s.recordFolder(ctx, conn, k.Name, EmptyRelation(k)); err != nil {
			return err
		}
	}
	return s.linkFolders(cur)
}

// recordQuery is what record table t holds.
func recordQuery(t string) string {
	if t == runFilesRecord {
		return "SELECT kind, snapshot_id, period, seq, rows, snapshot_id || '.' || seq || '.parquet' AS file FROM run_files"
	}
	return "SELECT * FROM " + t
}

// writeSnapshotRecords writes, for every snapshot of the state past its
// manifest (or failed before it) that has none, its file of each
// per-snapshot record table, and an empty file of each (so that a glob of
// the folder always matches).
func (s Records) writeSnapshotRecords(ctx context.Context, conn *sql.Conn) error {
	ids, err := state.Strings(ctx, conn, "SELECT id FROM snapshots WHERE status <> 'running'")
	if err != nil {
		return err
	}
	for _, t := range snapshotRecords {
		dir, err := s.recordFolder(ctx, conn, t, "SELECT * FROM "+t+" LIMIT 0")
		if err != nil {
			return err
		}
		have := map[string]bool{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			have[e.Name()] = true
		}
		written := false
		for _, id := range ids {
			if have[id+".parquet"] {
				continue
			}
			q := fmt.Sprintf("SELECT * FROM %s WHERE snapshot_id = %s ORDER BY ALL", t, state.SQLString(id))
			if err := state.CopyTo(ctx, conn, q, filepath.Join(dir, id+".parquet")); err != nil {
				return err
			}
			written = true
		}
		if written {
			fileutil.SyncDir(dir)
		}
	}
	return nil
}

// recordFolder is the folder of records name under the history
// directory, made with its empty file (emptyQuery's columns, no rows)
// when it has none.
func (s Records) recordFolder(ctx context.Context, conn *sql.Conn, name, emptyQuery string) (string, error) {
	dir := filepath.Join(s.at.History(), name)
	if _, err := os.Stat(filepath.Join(dir, EmptyFile)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := state.CopyTo(ctx, conn, emptyQuery, filepath.Join(dir, EmptyFile)); err != nil {
		return "", err
	}
	os.Remove(filepath.Join(s.at.History(), name+".parquet")) // where a run kind's empty file was before
	fileutil.SyncDir(dir)
	return dir, nil
}

// RemoveSnapshotRecords deletes the per-snapshot record files of
// snapshots ids, or of every snapshot but those when keep is set.
func (s Records) RemoveSnapshotRecords(ids []string, keep bool) {
	for _, t := range snapshotRecords {
		dir := filepath.Join(s.at.History(), t)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".parquet")
			if ok && e.Name() != EmptyFile && slices.Contains(ids, id) != keep {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
}

// linkFolders gives each generation of gens a link to each folder of
// records written once, where it has none: the per-snapshot record
// tables' and the run records' (ready made them, with their empty files),
// and history's (package history gives them their empty files).
func (s Records) linkFolders(gens ...string) error {
	var folders []string
	for _, k := range Kinds() {
		folders = append(folders, k.Name)
	}
	for _, gen := range gens {
		changed := false
		for _, name := range append(append(folders, snapshotRecords...), history.Folders()...) {
			target, _ := filepath.Rel(gen, filepath.Join(s.at.History(), name))
			err := os.Symlink(target, filepath.Join(gen, name))
			if err != nil && !errors.Is(err, os.ErrExist) {
				return err
			}
			changed = changed || err == nil
		}
		if changed {
			fileutil.SyncDir(gen)
		}
	}
	return nil
}

// recordNames are the record tables written whole, the runs and the
// index of the run files last.
func recordNames() []string {
	out := slices.DeleteFunc(slices.Clone(recordTables), func(t string) bool { return slices.Contains(snapshotRecords, t) })
	return append(out, runsRecord, runFilesRecord)
}

// periodNull is what a view of record t replaces of its columns: a
// reconciliation's period, which its files hold as the empty string for a whole
// snapshot (as the state does, and older stores' files), is NULL in the
// views, as in the runs and findings.json.
func periodNull(t string) string {
	switch t {
	case "reconciliations", "reconciliation_totals", runFilesRecord, Findings.Name, Unjudged.Name:
		return " REPLACE (nullif(period, '') AS period)"
	}
	return ""
}

func recordFile(gen, table string) string { return filepath.Join(gen, table+".parquet") }

// Views are the statements of the read model's views over the
// records, one a table, read through the records' link: a per-snapshot
// table's rows of the snapshots the records list, a run record's rows of
// the files the index lists; the macros <table>_of(snapshot) of the
// per-snapshot tables, which read that snapshot's file only (the state
// has the same macros: migrate.SnapshotMacrosSQL); and the macros
// <kind>_in(files) of the run records, which read only the files named
// (run_files' file: one reconciliation's), none when the list is empty.
// link is the records' link, absolute.
func (s Records) Views(link string) []string {
	var out []string
	for _, t := range recordNames() {
		out = append(out, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT *%s FROM read_parquet(%s, hive_partitioning = false)", t, periodNull(t), state.SQLString(recordFile(link, t))))
	}
	for _, t := range snapshotRecords {
		// By name: files written before a column was added lack it (NULL).
		out = append(out, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet(%s, union_by_name = true, hive_partitioning = false) WHERE snapshot_id IN (SELECT id FROM snapshots)",
			t, state.SQLString(filepath.Join(link, t, "*.parquet"))),
			fmt.Sprintf("CREATE OR REPLACE MACRO %s_of(snap) AS TABLE SELECT * FROM read_parquet(%s || snap || '.parquet', hive_partitioning = false)",
				t, state.SQLString(filepath.Join(link, t)+string(filepath.Separator))))
	}
	for _, k := range Kinds() {
		// By name, over the kind's columns: files written before a column
		// was added lack it (NULL), even when every file does.
		out = append(out, fmt.Sprintf(`CREATE OR REPLACE VIEW %s AS SELECT *%s FROM (%s
		UNION ALL BY NAME SELECT * EXCLUDE (filename) FROM read_parquet(%s, filename = true, union_by_name = true, hive_partitioning = false)
		WHERE parse_filename(filename) IN (SELECT file FROM read_parquet(%s, hive_partitioning = false) WHERE kind = %s))`,
			k.Name, periodNull(k.Name), EmptyRelation(k), state.SQLString(filepath.Join(link, k.Name, "*.parquet")), state.SQLString(recordFile(link, runFilesRecord)), state.SQLString(k.Name)),
			// The folder's empty file is read too: read_parquet of no file
			// is an error.
			fmt.Sprintf(`CREATE OR REPLACE MACRO %s_in(files) AS TABLE SELECT *%s FROM (%s
		UNION ALL BY NAME SELECT * FROM read_parquet(list_concat([%s], list_transform(files, f -> %s || f)), union_by_name = true, hive_partitioning = false))`,
				k.Name, periodNull(k.Name), EmptyRelation(k), state.SQLString(filepath.Join(link, k.Name, EmptyFile)),
				state.SQLString(filepath.Join(link, k.Name)+string(filepath.Separator))))
	}
	return out
}
