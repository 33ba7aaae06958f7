package runrec

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/snapshot/state"
)

// The records' runs are the journal as it was at the publish. A run whose
// end is on record (ok, material, failed, refused, interrupted) never
// changes, so a publish takes those from the current generation's runs
// record and reads the journal's files of the others only (the runs
// since, and those still running or read as killed): a year's journal is
// not read whole at every publish.

// runsColumns are the runs record's columns.
const runsColumns = `id VARCHAR, job VARCHAR, schedule VARCHAR, period VARCHAR, pid INTEGER, host VARCHAR,
	started TIMESTAMPTZ, alive TIMESTAMPTZ, finished TIMESTAMPTZ, status VARCHAR, exit_code INTEGER, snapshot_id VARCHAR, error VARCHAR`

// loadRuns fills a temporary table runs on conn (the state, in a
// section) with the journal's runs; cur is the current generation of the
// records.
func (s Records) loadRuns(ctx context.Context, conn *sql.Conn, cur string) error {
	dir := s.at.Runs()
	ids, err := journal.IDs(dir)
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE runs ("+runsColumns+")"); err != nil {
		return err
	}
	todo := s.keepEndedRuns(ctx, conn, recordFile(cur, runsRecord), ids)
	runs, err := journal.Read(dir, todo, s.now())
	if err != nil || len(runs) == 0 {
		return err
	}
	if err := writeJSONLines(s.at.RunsRecord(), runs); err != nil {
		return err
	}
	defer os.Remove(s.at.RunsRecord())
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`INSERT INTO runs BY NAME SELECT * FROM read_json(%s, format = 'newline_delimited',
		hive_partitioning = false, columns = %s)`, state.SQLString(s.at.RunsRecord()), jsonColumns(runsColumns)))
	return err
}

// jsonColumns is read_json's columns parameter for a column list
// ("name TYPE, …").
func jsonColumns(columns string) string {
	var fields []string
	for _, c := range strings.Split(columns, ",") {
		name, typ, _ := strings.Cut(strings.TrimSpace(c), " ")
		fields = append(fields, fmt.Sprintf("%s: %s", name, state.SQLString(typ)))
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// keepEndedRuns copies into runs the rows of the runs ids whose end is on
// record in the runs record at path, and returns the IDs of the others.
// It copies none when the record cannot be read (there is none yet, or it
// has other columns).
func (s Records) keepEndedRuns(ctx context.Context, conn *sql.Conn, path string, ids []string) []string {
	if _, err := os.Stat(path); err != nil {
		return ids
	}
	// hive_partitioning off: a directory named key=value above the store
	// (DIR under /data/env=prod/) is no column of the record.
	ended, err := state.Strings(ctx, conn, fmt.Sprintf("SELECT id FROM read_parquet(%s, hive_partitioning = false) WHERE %s", state.SQLString(path), endedSQL))
	if err != nil {
		s.log.Warn("the runs record cannot be read; reading the whole journal", "error", err)
		return ids
	}
	inJournal := map[string]bool{}
	for _, id := range ids {
		inJournal[id] = true
	}
	kept, gone := map[string]bool{}, []string{"''"}
	for _, id := range ended {
		if inJournal[id] {
			kept[id] = true
		} else {
			gone = append(gone, state.SQLString(id)) // pruned since
		}
	}
	q := fmt.Sprintf("INSERT INTO runs BY NAME SELECT * FROM read_parquet(%s, hive_partitioning = false) WHERE %s AND NOT list_contains([%s], id)",
		state.SQLString(path), endedSQL, strings.Join(gone, ", "))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		s.log.Warn("the runs record cannot be read; reading the whole journal", "error", err)
		return ids
	}
	var todo []string
	for _, id := range ids {
		if !kept[id] {
			todo = append(todo, id)
		}
	}
	return todo
}

// endedSQL selects the runs whose end is on record.
const endedSQL = "status NOT IN ('running', 'killed')"

// writeJSONLines writes runs to path, a JSON object a line.
func writeJSONLines(path string, runs []journal.Run) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range runs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
