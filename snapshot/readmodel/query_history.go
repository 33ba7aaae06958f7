package readmodel

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
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
		c, err := scanChange(rows)
		if err != nil {
			return nil, err
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
	abs, err := filepath.Abs(link)
	if err != nil {
		return err
	}
	for _, t := range tables {
		own := state.AttachedAs + ".main."
		rel := history.Relation(abs, t, own+"latest_"+t.Name, t.WithoutLabels(own+state.QuoteIdent(t.Name)))
		q := fmt.Sprintf("CREATE OR REPLACE TEMP VIEW latest_%s AS %s", t.Name, history.AsOf("("+rel+")", at))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("as of %s: %w", ts.UTC().Format(time.RFC3339), err)
		}
	}
	return nil
}

// The ops of the change feed, in the order the feed lists them.
const (
	OpInsert = "insert"
	OpUpdate = "update"
	OpDelete = "delete"
)

// Ops are the change feed's ops: insert, update, delete.
func Ops() []string { return []string{OpInsert, OpUpdate, OpDelete} }

// OpBase is how a version began that the first complete snapshot of its
// table's history (the base) held: it was there when history began, not
// inserted.
const OpBase = "base"

// historyTable is table's name when it is one of the catalogue's tables,
// the only names a query of history spells; else an error.
func historyTable(table string) (string, error) {
	t, err := catalog.TableNamed(table)
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	return t.Name, nil
}

// TimelineVersion is one version of a record as its timeline shows it:
// its validity and the snapshots that bound it; how it began (OpBase,
// OpInsert, or OpUpdate with the fields that changed from the version
// before and their values before and after, JSON objects keyed by the
// service's field names); and whether its end was the record's deletion
// (no version of it begins where it ends).
type TimelineVersion struct {
	From, To             string // snapshot_from, snapshot_to ("" while current)
	ValidFrom            time.Time
	ValidTo              *time.Time // nil while current
	Began                string
	Fields               []string // for an update, sorted
	OldValues, NewValues string   // "" but for an update
	Deleted              bool
}

// Timeline is every version of record id of table, oldest first, read
// from <table>_history filtered by id; table must be one of the
// catalogue's tables. The fields an update changed are told as the change
// feed tells them (history.ChangedFields): a version that follows another
// without a gap is an update, one after a gap (the record deleted, then
// inserted again) or the first is an insert, unless its table's base
// held it. None for a record history does not hold.
func Timeline(ctx context.Context, q state.Querier, table, id string) ([]TimelineVersion, error) {
	name, err := historyTable(table)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, timelineSQL(name), id, name)
	if err != nil {
		return nil, fmt.Errorf("history of %s %s: %w", name, id, err)
	}
	defer rows.Close()
	var out []TimelineVersion
	for rows.Next() {
		v, err := scanTimeline(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// timelineSQL is Timeline's query of table's history: the record's ID,
// then the table's name, as placeholders.
func timelineSQL(table string) string {
	return fmt.Sprintf(`WITH v AS (
			SELECT snapshot_from, snapshot_to, valid_from, valid_to, _raw,
				lag(snapshot_to) OVER w AS prev_to, lag(_raw) OVER w AS prev_raw, lead(snapshot_from) OVER w AS next_from
			FROM %[1]s WHERE id = ? WINDOW w AS (ORDER BY valid_from)),
		f AS (SELECT *, CASE WHEN prev_to = snapshot_from THEN %[2]s END AS fields FROM v)
		SELECT snapshot_from, coalesce(snapshot_to, ''), valid_from, valid_to,
			CASE WHEN prev_to = snapshot_from THEN 'update'
				WHEN prev_to IS NULL AND snapshot_from IN (SELECT snapshot FROM history_steps WHERE table_name = ? AND previous IS NULL) THEN 'base'
				ELSE 'insert' END,
			coalesce(fields, []), coalesce(CAST(%[3]s AS VARCHAR), ''), coalesce(CAST(%[4]s AS VARCHAR), ''),
			snapshot_to IS NOT NULL AND next_from IS DISTINCT FROM snapshot_to
		FROM f ORDER BY valid_from`,
		state.QuoteIdent(table+"_history"), history.ChangedFields("prev_raw", "_raw"),
		history.FieldValues("prev_raw", "fields"), history.FieldValues("_raw", "fields"))
}

func scanTimeline(rows *sql.Rows) (TimelineVersion, error) {
	var v TimelineVersion
	var fields []any
	err := rows.Scan(&v.From, &v.To, &v.ValidFrom, &v.ValidTo, &v.Began, &fields, &v.OldValues, &v.NewValues, &v.Deleted)
	for _, f := range fields {
		v.Fields = append(v.Fields, fmt.Sprint(f))
	}
	return v, err
}

// TableChanges is what one table's step of history counted: the records
// it inserted, updated and deleted. Base: the step was the table's first
// (its base), whose records were there when history began, so its
// counts are no change.
type TableChanges struct {
	Table                      string
	Inserted, Updated, Deleted int64
	Base                       bool
}

// Step is the step of history a complete snapshot took: the snapshot,
// its time, the snapshot of the step before ("" when every table's step
// was its base), and per table what it counted, by table name.
type Step struct {
	Snapshot, Previous string
	At                 time.Time
	Tables             []TableChanges
}

// StepOf is the step of snapshot snap ("" for the latest complete
// snapshot of history), from history_steps; ok is false when history
// holds no such step (an incomplete snapshot, or no history yet).
func StepOf(ctx context.Context, q state.Querier, snap string) (s Step, ok bool, err error) {
	rows, err := q.QueryContext(ctx, `SELECT snapshot, "at", coalesce(previous, ''), table_name, inserted, updated, deleted
		FROM history_steps
		WHERE snapshot = coalesce(nullif(?, ''), (SELECT snapshot_id FROM history_snapshots ORDER BY "at" DESC, snapshot_id DESC LIMIT 1))
		ORDER BY table_name`, snap)
	if err != nil {
		return s, false, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t TableChanges
		var prev string
		if err := rows.Scan(&s.Snapshot, &s.At, &prev, &t.Table, &t.Inserted, &t.Updated, &t.Deleted); err != nil {
			return s, false, err
		}
		t.Base, s.Previous = prev == "", max(s.Previous, prev)
		s.Tables = append(s.Tables, t)
	}
	return s, len(s.Tables) > 0, rows.Err()
}

// ChangesInto are the changes into snapshot snap (the change feed's rows
// whose to_snapshot it is) of table and op ("" for any; a table must be
// one of the catalogue's, an op one of Ops), one page of them in the
// order of table, op (insert, update, delete) and ID (a Limit of 0: all),
// and how many there are in all: one read of the feed, the count beside
// each row (a page past the last has none, and counts 0).
func ChangesInto(ctx context.Context, q state.Querier, snap, table, op string, p Page) ([]Change, int, error) {
	if err := checkChangeFilter(table, op); err != nil {
		return nil, 0, err
	}
	limit := "ALL"
	if p.Limit > 0 {
		limit = fmt.Sprint(p.Limit)
	}
	rows, err := q.QueryContext(ctx, `SELECT "table", id, op, coalesce(fields, []), coalesce(from_snapshot, ''), to_snapshot, "at",
			coalesce(CAST(old_values AS VARCHAR), ''), coalesce(CAST(new_values AS VARCHAR), ''), count(*) OVER ()
		FROM changes WHERE to_snapshot = ? AND (? = '' OR "table" = ?) AND (? = '' OR op = ?)
		ORDER BY "table", list_position(['insert', 'update', 'delete'], op), id LIMIT `+limit+` OFFSET ?`,
		snap, table, table, op, op, max(p.Offset, 0))
	if err != nil {
		return nil, 0, fmt.Errorf("changes: %w", err)
	}
	defer rows.Close()
	var out []Change
	var total int
	for rows.Next() {
		c, err := scanChange(rows, &total)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

// checkChangeFilter refuses a table not of the catalogue and an op not of
// Ops ("" is any).
func checkChangeFilter(table, op string) error {
	if table != "" {
		if _, err := historyTable(table); err != nil {
			return err
		}
	}
	if op != "" && !slices.Contains(Ops(), op) {
		return fmt.Errorf("changes: op %q: want insert, update or delete", op)
	}
	return nil
}

// scanChange scans a change, and the columns of more after it.
func scanChange(rows *sql.Rows, more ...any) (Change, error) {
	var c Change
	var fields []any
	err := rows.Scan(append([]any{&c.Table, &c.ID, &c.Op, &fields, &c.From, &c.To, &c.At, &c.OldValues, &c.NewValues}, more...)...)
	for _, f := range fields {
		c.Fields = append(c.Fields, fmt.Sprint(f))
	}
	return c, err
}
