package readmodel

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/history"
	"github.com/billsnap/billsnap/snapshot/state"
)

// HistorySnapshot is a complete snapshot that moved history, and the time
// it stands for (history.TimeOf).
type HistorySnapshot struct {
	ID string
	At time.Time
}

// HistorySnapshots are the snapshots of history_snapshots, oldest first:
// none on a store that has taken no complete snapshot since it kept
// history.
func HistorySnapshots(ctx context.Context, q state.Querier) ([]HistorySnapshot, error) {
	rows, err := q.QueryContext(ctx, `SELECT snapshot_id, "at" FROM history_snapshots ORDER BY "at", snapshot_id`)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []HistorySnapshot
	for rows.Next() {
		var h HistorySnapshot
		if err := rows.Scan(&h.ID, &h.At); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Change is one record that differs between two moments: inserted,
// updated (with the service's names of the fields that changed, and
// their values before and after as JSON objects) or deleted.
type Change struct {
	Table, ID, Op        string
	Fields               []string
	From, To             string // the snapshots that stood at the two moments
	At                   time.Time
	OldValues, NewValues string // JSON objects of the fields changed ("" but for an update)
}

// ChangeFilter narrows ChangesBetween to a table and a record ("" for
// any).
type ChangeFilter struct{ Table, ID string }

// ChangesBetween are the records whose version at t1 is not their
// version at t0 (changes_between), in the order of table, op and ID.
func ChangesBetween(ctx context.Context, q state.Querier, t0, t1 time.Time, f ChangeFilter) ([]Change, error) {
	rows, err := q.QueryContext(ctx, `SELECT "table", id, op, coalesce(fields, []), from_snapshot, to_snapshot, "at",
			coalesce(CAST(old_values AS VARCHAR), ''), coalesce(CAST(new_values AS VARCHAR), '')
		FROM changes_between(?::TIMESTAMPTZ, ?::TIMESTAMPTZ)
		WHERE (? = '' OR "table" = ?) AND (? = '' OR id = ?) ORDER BY "table", op, id`,
		t0, t1, f.Table, f.Table, f.ID, f.ID)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var fields []any
		if err := rows.Scan(&c.Table, &c.ID, &c.Op, &fields, &c.From, &c.To, &c.At, &c.OldValues, &c.NewValues); err != nil {
			return nil, err
		}
		for _, f := range fields {
			c.Fields = append(c.Fields, fmt.Sprint(f))
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Version is one version of a record: its validity, the snapshots that
// bound it, and the record as the service sent it.
type Version struct {
	From, To  string // snapshot_from, snapshot_to ("" while current)
	ValidFrom time.Time
	ValidTo   *time.Time
	Raw       string
}

// Versions are every version of record id of table, oldest first
// (<table>_history); table must be one of the store's tables.
func Versions(ctx context.Context, q state.Querier, table, id string) ([]Version, error) {
	rows, err := q.QueryContext(ctx, fmt.Sprintf(`SELECT snapshot_from, coalesce(snapshot_to, ''), valid_from, valid_to, CAST(_raw AS VARCHAR)
		FROM %s WHERE id = ? ORDER BY valid_from`, state.QuoteIdent(table+"_history")), id)
	if err != nil {
		return nil, fmt.Errorf("history of %s %s: %w", table, id, err)
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		var v Version
		if err := rows.Scan(&v.From, &v.To, &v.ValidFrom, &v.ValidTo, &v.Raw); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ErrBeforeHistory is a moment before the first snapshot of history.
var ErrBeforeHistory = errors.New("before the store's history")

// ReadAsOf makes the latest_<table> of every table of tables, on db's one
// connection, a temporary view of the table as it stood at ts (as
// <table>_asof has it, reading the read model's own latest_ tables by
// their qualified names), so that a statement run afterwards on db reads
// the store as it was then. link is the store's records' link, db a
// database from Open holding one connection (SetMaxOpenConns(1)). A ts
// before the first snapshot of history is ErrBeforeHistory, naming that
// snapshot and its time.
func ReadAsOf(ctx context.Context, db *sql.DB, ts time.Time, link string, tables []catalog.Table) error {
	snaps, err := HistorySnapshots(ctx, db)
	if err != nil {
		return err
	}
	if len(snaps) == 0 || ts.Before(snaps[0].At) {
		first := "none: the store has no complete snapshot with history yet"
		if len(snaps) > 0 {
			first = fmt.Sprintf("snapshot %s at %s", snaps[0].ID, snaps[0].At.UTC().Format(time.RFC3339))
		}
		return fmt.Errorf("%s is %w, whose first complete snapshot is %s", ts.UTC().Format(time.RFC3339), ErrBeforeHistory, first)
	}
	at := state.SQLString(ts.UTC().Format(time.RFC3339Nano)) + "::TIMESTAMPTZ"
	for _, t := range tables {
		own := state.AttachedAs + ".main.latest_" + t.Name
		q := fmt.Sprintf("CREATE OR REPLACE TEMP VIEW latest_%s AS %s", t.Name,
			history.AsOf("("+history.Relation(absolute(link), t, own)+")", at))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("as of %s: %w", ts.UTC().Format(time.RFC3339), err)
		}
	}
	return nil
}
