package history

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Views are the statements of the read model's relations of history,
// read through the records' link (absolute), whose history_steps lists
// the steps that count and whose folders link to history's:
//
//	history_snapshots       every complete snapshot that moved history, and its time
//	snapshot_time(id)       a snapshot's time, from its ID
//	<table>_history         every version of every record, current ones included
//	<table>_asof(ts)        the table as it stood at ts: latest_<table>'s columns and _raw
//	changes                 the change feed, step by step
//	changes_between(t0, t1) what changed between the tables as they stood at t0 and at t1
//
// The current versions are the rows of the snapshot the read model's
// latest_ tables hold, read from rows(t) (every complete snapshot's rows
// of table t, _raw with them: the Parquet tree), joined with the index of
// that snapshot.
func Views(link string, tables []catalog.Table, rows func(catalog.Table) string) []string {
	out := []string{
		`CREATE OR REPLACE VIEW history_snapshots AS SELECT snapshot AS snapshot_id, min("at") AS "at" FROM history_steps GROUP BY snapshot ORDER BY "at", snapshot_id`,
		`CREATE OR REPLACE MACRO snapshot_time(snap) AS coalesce((SELECT h."at" FROM history_snapshots h WHERE h.snapshot_id = snap),
			timezone('UTC', try_strptime(left(snap, 17), '%Y-%m-%dT%H%M%SZ')))`,
		`CREATE OR REPLACE MACRO history_snapshot_at(ts) AS (SELECT h.snapshot_id FROM history_snapshots h WHERE h."at" <= CAST(ts AS TIMESTAMPTZ) ORDER BY h."at" DESC, h.snapshot_id DESC LIMIT 1)`,
	}
	for _, t := range tables {
		out = append(out, historyView(link, t, rows(t)), asofMacro(t))
	}
	return append(out, changesView(link), changesBetween(tables))
}

// historyView is <table>_history (Relation).
func historyView(link string, t catalog.Table, rows string) string {
	return fmt.Sprintf("CREATE OR REPLACE VIEW %s_history AS %s", t.Name, Relation(link, t, "latest_"+t.Name, rows))
}

// Relation is the relation of every version of table t, with the
// columns of latest (the table's latest_ relation) but snapshot_id, and
// _raw: the versions closed, from the files of the steps the records (at
// link) list (Keep), and the current versions, the rows of the snapshot
// latest holds, read from rows (every snapshot's rows of t, snapshot_id
// and _raw among them), joined with that snapshot's index.
func Relation(link string, t catalog.Table, latest, rows string) string {
	versions := filepath.Join(link, Versions, t.Name, "*.parquet")
	current := filepath.Join(link, Current, t.Name, "*.parquet")
	return fmt.Sprintf(`SELECT * EXCLUDE (snapshot_id), NULL::JSON AS _raw, NULL::TIMESTAMPTZ AS valid_from, NULL::TIMESTAMPTZ AS valid_to,
			NULL::VARCHAR AS snapshot_from, NULL::VARCHAR AS snapshot_to FROM %[1]s WHERE false
		UNION ALL BY NAME
		SELECT * EXCLUDE (filename) REPLACE (CAST(_raw AS JSON) AS _raw) FROM read_parquet(%[2]s, filename = true, union_by_name = true, hive_partitioning = false)
		WHERE %[4]s
		UNION ALL BY NAME
		SELECT r.* EXCLUDE (snapshot_id), c.valid_from, NULL::TIMESTAMPTZ AS valid_to, c.snapshot_from, NULL::VARCHAR AS snapshot_to
		FROM (%[5]s) r JOIN read_parquet(%[3]s, filename = true, hive_partitioning = false) c ON r.id = c.id
		WHERE r.snapshot_id = (SELECT snapshot_id FROM %[1]s LIMIT 1) AND parse_filename(c.filename, true) = (SELECT snapshot_id FROM %[1]s LIMIT 1)`,
		latest, state.SQLString(versions), state.SQLString(current), Keep(state.SQLString(t.Name), "snapshot_to"), rows)
}

// Keep is the SQL condition that a row of a file of versions or changes
// (read with filename = true) counts: its step (the column step names)
// is one history_steps lists for table (a SQL expression), and the file
// is the one that holds that step now, its own or its pack. So a step
// reads the same from its own file or from a pack, a file of a section
// that did not commit is in no view, nor a step's own file once a pack
// holds it, nor the rows of a pack's steps that retention forgot.
func Keep(table, step string) string {
	return fmt.Sprintf(`%[1]s || '/' || parse_filename(filename, true) || '/' || %[2]s IN
			(SELECT table_name || '/' || coalesce(pack, snapshot) || '/' || snapshot FROM history_steps)`, table, step)
}

// asofMacro is <table>_asof(ts) (AsOf), bound when it is called
// (boundWhenCalled).
func asofMacro(t catalog.Table) string {
	return fmt.Sprintf("CREATE OR REPLACE MACRO %s_asof(ts) AS TABLE SELECT v.* FROM %s, (%s) v", t.Name, boundWhenCalled("ts"), AsOf(t.Name+"_history", "ts"))
}

// boundWhenCalled is the first relation of a table macro's FROM that
// makes DuckDB bind the macro when it is called rather than when it is
// made: one row, the macro's parameter param, whose type DuckDB cannot
// know before the call. DuckDB binds a table macro when it is made (since
// 1.4) and again at each call; binding the macros over history reads
// every history view's Parquet footers, and a fresh store's first publish
// spent about half of its views' binding on its macros. A macro whose
// binding stops at a parameter is kept unbound; what it reads is then
// checked at its first call, as a view's is at its first query.
func boundWhenCalled(param string) string {
	return fmt.Sprintf("unnest([%s]) AS called(asked)", param)
}

// AsOf is the relation of the versions of history (every version of a
// table) valid at ts (a SQL expression), with the snapshot that stood
// then, as latest_<table> has its rows.
func AsOf(history, ts string) string {
	return fmt.Sprintf(`SELECT history_snapshot_at(%[2]s) AS snapshot_id, * EXCLUDE (valid_from, valid_to, snapshot_from, snapshot_to) FROM %[1]s
		WHERE %[3]s`, history, ts, validAt(ts))
}

// changesView is changes: every step's changes, of the steps the records
// list (Keep).
func changesView(link string) string {
	glob := filepath.Join(link, Changes, "*", "*.parquet")
	return fmt.Sprintf(`CREATE OR REPLACE VIEW changes AS
		SELECT * EXCLUDE (filename) FROM read_parquet(%s, filename = true, union_by_name = true, hive_partitioning = false)
		WHERE %s`, state.SQLString(glob), Keep(`"table"`, "to_snapshot"))
}

// changesBetween is changes_between(t0, t1): the records whose version
// valid at t1 is not the one valid at t0, as the change feed has them,
// from the snapshot that stood at t0 to the one at t1. A record that
// changed and changed back in between is not listed. Each table's history
// is read once, and the fields compared in one place, over the union of
// the tables' versions valid at either moment (a join of two as-of
// relations per table, each comparing fields of its own, took 180 ms to
// bind). It is bound when called (boundWhenCalled).
func changesBetween(tables []catalog.Table) string {
	parts := make([]string, len(tables))
	for i, t := range tables {
		parts[i] = fmt.Sprintf(`SELECT %s AS "table", id, _raw, valid_from, valid_to FROM %s_history`, state.SQLString(t.Name), t.Name)
	}
	at0, at1 := validAt("t0"), validAt("t1")
	return fmt.Sprintf(`CREATE OR REPLACE MACRO changes_between(t0, t1) AS TABLE
		SELECT "table", id, op, fields, history_snapshot_at(t0) AS from_snapshot, history_snapshot_at(t1) AS to_snapshot,
			snapshot_time(history_snapshot_at(t1)) AS "at",
			CASE WHEN op = 'update' THEN %[1]s END AS old_values, CASE WHEN op = 'update' THEN %[2]s END AS new_values
		FROM %[7]s, (SELECT *, CASE WHEN old_raw IS NULL THEN 'insert' WHEN new_raw IS NULL THEN 'delete' ELSE 'update' END AS op,
				CASE WHEN old_raw IS NOT NULL AND new_raw IS NOT NULL THEN %[3]s END AS fields
			FROM (SELECT "table", id, first(_raw) FILTER (WHERE %[4]s) AS old_raw, first(_raw) FILTER (WHERE %[5]s) AS new_raw
				FROM (%[6]s) WHERE (%[4]s) OR (%[5]s) GROUP BY "table", id)
			WHERE CAST(old_raw AS VARCHAR) IS DISTINCT FROM CAST(new_raw AS VARCHAR)) c
		WHERE op <> 'update' OR len(fields) > 0`,
		FieldValues("old_raw", "fields"), FieldValues("new_raw", "fields"), ChangedFields("old_raw", "new_raw"),
		at0, at1, strings.Join(parts, "\n\t\t\t\tUNION ALL "), boundWhenCalled("t0"))
}

// validAt is the SQL condition that a version (valid_from, valid_to) was
// the one valid at ts (an SQL expression), as AsOf reads it.
func validAt(ts string) string {
	return fmt.Sprintf(`valid_from <= CAST(%[1]s AS TIMESTAMPTZ) AND (valid_to IS NULL OR valid_to > CAST(%[1]s AS TIMESTAMPTZ))`, ts)
}
