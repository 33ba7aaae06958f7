package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// The records are billsnap's own tables as readers see them: one Parquet
// file a table in a generation of DIR/records (a link, switched in one
// rename like the Parquet tree's), read by the read model's views of the
// same names. A publish writes a new generation whole from the state,
// so a reconciliation publishes its findings without writing the read
// model's snapshot tables again, and a reader sees one reconciliation's
// findings whole or not at all.
//
//	snapshots, snapshot_tables, snapshot_fields   the manifest
//	reconciliations, reconciliation_totals       reconcile's
//	field_ids                                    the catalogue of columns' field IDs
//	runs                                         the journal, as it was then
//	findings/, unjudged/, rechecks/              the run records (history.go):
//	                                             their files, linked, never rewritten

// recordTables are the state's tables published as records, in order.
var recordTables = []string{"snapshots", "snapshot_tables", "snapshot_fields", "reconciliations", "reconciliation_totals", "field_ids"}

// runsRecord is the journal's table among the records.
const runsRecord = "runs"

// buildRecords writes the next generation of the records from the state
// and the journal, to be shown once the state commits (showRecords). A
// current generation that lacks a table's file (the first publish) is
// given an empty one first, so that the read model's views, which read
// through the link, can be made before the link is switched. db is the
// state, in a section.
func (s *Store) buildRecords(ctx context.Context, db *sql.DB) error {
	s.dropRecords()
	cur, err := s.records.current()
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(filepath.Base(cur))
	if err != nil {
		return fmt.Errorf("records: %s is not a generation", cur)
	}
	next := s.records.gen(n + 1)
	os.RemoveAll(next)
	if err := os.MkdirAll(next, 0o755); err != nil {
		return fmt.Errorf("records: %w", err)
	}
	s.recordsNext = next
	if err := s.writeRecords(ctx, db, cur, next); err != nil {
		s.dropRecords()
		return fmt.Errorf("records: %w", err)
	}
	syncDir(next)
	return nil
}

// writeRecords writes one Parquet file a record table into next, and an
// empty one into cur where it has none.
func (s *Store) writeRecords(ctx context.Context, db *sql.DB, cur, next string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	runs, err := s.runsSQL()
	if err != nil {
		return err
	}
	defer os.Remove(s.runsFile())
	for _, q := range runs {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for _, t := range recordNames() {
		if _, err := os.Stat(recordFile(cur, t)); err != nil {
			if err := copyTo(ctx, conn, "SELECT * FROM "+t+" LIMIT 0", recordFile(cur, t)); err != nil {
				return err
			}
		}
		if err := copyTo(ctx, conn, "SELECT * FROM "+t, recordFile(next, t)); err != nil {
			return err
		}
	}
	syncDir(cur)
	return s.linkRunFiles(ctx, conn, cur, next)
}

// linkRunFiles links every indexed run file into a folder of its kind in
// next, beside an empty file of the kind (so that a glob of the folder
// always matches, and gives the kind's columns); cur gets the empty file
// where it has none.
func (s *Store) linkRunFiles(ctx context.Context, conn *sql.Conn, cur, next string) error {
	var synced []string
	for _, k := range runKinds {
		empty := filepath.Join(s.historyDir(), k.name+".parquet")
		if _, err := os.Stat(empty); err != nil {
			if err := os.MkdirAll(s.historyDir(), 0o755); err != nil {
				return err
			}
			if err := copyTo(ctx, conn, emptyRelation(k), empty); err != nil {
				return err
			}
		}
		files, err := s.runFiles(ctx, conn, "kind = ?", k.name)
		if err != nil {
			return err
		}
		for _, gen := range []string{cur, next} {
			if err := os.MkdirAll(filepath.Join(gen, k.name), 0o755); err != nil {
				return err
			}
			if err := os.Link(empty, filepath.Join(gen, k.name, "empty.parquet")); err != nil && !errors.Is(err, os.ErrExist) {
				return err
			}
		}
		for _, f := range files {
			if err := os.Link(s.runFilePath(f), filepath.Join(next, k.name, filepath.Base(s.runFilePath(f)))); err != nil {
				return err
			}
		}
		synced = append(synced, filepath.Join(next, k.name))
	}
	syncAll(synced)
	return nil
}

// recordNames are the record tables, the runs last.
func recordNames() []string { return append(slices.Clone(recordTables), runsRecord) }

func recordFile(gen, table string) string { return filepath.Join(gen, table+".parquet") }

// copyTo writes what query returns to a Parquet file at path: written
// beside it, made durable and renamed into place, so that the file at
// path is whole whenever the process dies.
func copyTo(ctx context.Context, conn *sql.Conn, query, path string) error {
	tmp := path + ".tmp"
	q := fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", query, sqlString(tmp))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// showRecords points the records' link at the generation built, and
// removes the others.
func (s *Store) showRecords() error {
	next := s.recordsNext
	s.recordsNext = ""
	if next == "" {
		return nil
	}
	if err := s.records.point(next); err != nil {
		return err
	}
	s.records.removeOthers(next)
	return nil
}

// dropRecords removes a generation built and not shown.
func (s *Store) dropRecords() {
	if s.recordsNext != "" {
		os.RemoveAll(s.recordsNext)
		s.recordsNext = ""
	}
}

// recordViews are the statements of the read model's views over the
// records, one a table, read through the records' link.
func (s *Store) recordViews() []string {
	var out []string
	for _, t := range recordNames() {
		out = append(out, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet(%s)",
			t, sqlString(recordFile(absolute(s.records.link), t))))
	}
	for _, k := range runKinds {
		out = append(out, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet(%s)",
			k.name, sqlString(filepath.Join(absolute(s.records.link), k.name, "*.parquet"))))
	}
	return out
}

// latestView is the statement of the view latest_snapshot: the snapshot
// the model's latest_ tables hold, so that a session that keeps the file
// open sees the two agree.
func latestView(latest string) string {
	return "CREATE OR REPLACE VIEW latest_snapshot AS SELECT * FROM snapshots WHERE id = " + sqlString(latest)
}
