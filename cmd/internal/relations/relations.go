// Package relations lists the read model's tables and views, each with what
// it holds ([Print], for billsnap query --tables), and one relation's
// columns with what the read model's columns view says of them
// ([PrintColumns], for --columns). Its descriptions are the one source of
// docs/store.md's table of the read model ([DocTable], which a test holds
// to the doc).
package relations

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/cmd/internal/resultset"
	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/usage"
)

// relationDoc says what one table or view of the read model holds. name
// is the relation's name, or a pattern over the collection tables
// ("latest_<table>", "<table>", "incomplete_<table>").
type relationDoc struct{ name, about string }

// readModelDocs is the one source of what the read model's tables and
// views hold: query --tables prints it, and docs/store.md's list of them
// is this list (TestStoreDocListsTheReadModel).
func readModelDocs() []relationDoc {
	return []relationDoc{
		{"latest_<table>", "the newest complete snapshot's TABLE: native DuckDB tables, every column but `_raw` (the `<table>` view has it)"},
		{"<table>", "every complete snapshot's TABLE, `snapshot_id` naming the snapshot: a view over the Parquet tree"},
		{"incomplete_<table>", "the incomplete snapshots' TABLE: a view over their Parquet tree"},
		{"snapshots", "each snapshot: id, started, finished, status (`running`, `publishing`, `complete`, `incomplete`, `failed`), base and front URL, error"},
		{"snapshot_tables", "per snapshot and table: walks, pages, records received, distinct IDs, TotalCount, Parquet and DuckDB rows, the SHA-256 of the sorted IDs, seconds, complete, problem (one snapshot's only: `snapshot_tables_of(id)`)"},
		{"snapshot_fields", "per snapshot, table and field: the values by JSON type, coerced, untyped, an example record (docs/fields.md; one snapshot's only: `snapshot_fields_of(id)`)"},
		{"reconciliations", "each reconciliation: its snapshot and period (NULL for the whole snapshot, here and in every table with a period), when it ran and what it found in all (`findings`: the open findings, neither resolved nor waived)"},
		{"reconciliation_totals", "per reconciliation, severity and currency: the open findings (neither resolved nor waived) and their amount (what the trend reads)"},
		{"findings", "what each reconciliation found, one row per finding: a view over the run records (the files named only: `findings_in(files)`); `customer_id`, `customer_name`, `invoice_number` name the record's customer and invoice (NULL when not known, and in findings kept before they were)"},
		{"unjudged", "what a reconciliation could not judge, and why: a view over the run records (the files named only: `unjudged_in(files)`)"},
		{"rechecks", "what `billsnap recheck` found of each finding, every time: a view over the run records (the files named only: `rechecks_in(files)`)"},
		{"field_ids", "the catalogue of columns: every field ID each table's columns have had, with the column's name, kind and the first snapshot that had it"},
		{"runs", "the journal of runs as it was at the publish"},
		{"run_files", "the index of the run records' files: kind, snapshot, period, number, rows, file name"},
		{"<table>_history", "every version of each TABLE record, the current ones included: the record's columns, `valid_from` and `valid_to` (NULL while current), `snapshot_from` and `snapshot_to`; moved only by complete snapshots (docs/history.md; as it stood at a time: `<table>_asof(ts)`)"},
		{"changes", "the change feed: per complete snapshot and table, each record inserted, updated (the service's names of the `fields` that changed, `old_values` and `new_values`) or deleted since the complete snapshot before (between any two moments: `changes_between(t0, t1)`)"},
		{"history_snapshots", "every complete snapshot that moved history, with the time it stands for (`at`; `snapshot_time(id)`), kept when retention prunes the snapshot"},
		{"history_steps", "per complete snapshot and table, the step of history it took: the step before, what it inserted, updated and deleted, and the pack that holds its files (`pack`)"},
		{"latest_snapshot", "the snapshot the `latest_` tables hold"},
		{"billsnap_model", "that snapshot's ID and a digest of the views"},
		{"columns", "the data dictionary: every column of every table and view here, with its type, what it holds and the service's field it comes from (`source_field`, NULL for billsnap's own columns)"},
		{"codes", "the codes of every coded column (`subscription_charges.status`: 1 active, 7 charged), each with its label; the views give each coded column its label beside it (`status_label`), and the macro `label(table, column, code)` gives one anywhere"},
	}
}

// describe is what readModelDocs says of relation, given the names of
// all the read model's relations: a collection's table is a relation
// with a latest_ twin.
func describe(relation string, names []string) string {
	pattern, table := relation, relation
	for _, prefix := range []string{"", "latest_", "incomplete_"} {
		if t, ok := strings.CutPrefix(relation, prefix); ok && slices.Contains(names, "latest_"+t) && slices.Contains(names, t) {
			pattern, table = prefix+"<table>", t
			break
		}
	}
	if t, ok := strings.CutSuffix(relation, "_history"); ok && slices.Contains(names, "latest_"+t) {
		pattern, table = "<table>_history", t
	}
	for _, d := range readModelDocs() {
		if d.name == pattern {
			return strings.NewReplacer("`", "", "TABLE", table).Replace(d.about)
		}
	}
	return "(not described in docs/store.md)"
}

// relations are the names of the read model's tables and views, in
// order.
func relations(ctx context.Context, db *sql.DB) ([]string, error) {
	return state.Strings(ctx, db, `SELECT table_name FROM information_schema.tables
		WHERE table_catalog = current_database() AND table_schema = 'main' ORDER BY table_name`)
}

// Print prints each table and view of the read model with what it
// holds, in format (a table: a line each).
func Print(ctx context.Context, w io.Writer, db *sql.DB, format string) error {
	names, err := relations(ctx, db)
	if err != nil {
		return err
	}
	p, err := resultset.NewPrinter(w, format, []string{"name", "description"}, []string{"VARCHAR", "VARCHAR"})
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := p.Row([]any{n, describe(n, names)}); err != nil {
			return err
		}
	}
	return p.End(len(names), len(names))
}

// PrintColumns prints the columns of the read model's relation name,
// each with its type, what it holds and the service's field it comes
// from (the columns relation; both empty in a model published before it
// had one), in format. A name the read model has not is a usage error.
func PrintColumns(ctx context.Context, w io.Writer, db *sql.DB, name, format string) error {
	cols, err := columnsOf(ctx, db, name)
	if err != nil {
		return err
	}
	if len(cols) == 0 {
		return usage.Errorf("--columns %q: the read model has no such table or view ('billsnap query --tables' lists them)", name)
	}
	p, err := resultset.NewPrinter(w, format, []string{"name", "type", "description", "source_field"}, []string{"VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR"})
	if err != nil {
		return err
	}
	for _, c := range cols {
		if err := p.Row([]any{c.name, c.typ, c.about, c.field}); err != nil {
			return err
		}
	}
	return p.End(len(cols), len(cols))
}

// column is a column of a relation, described; about and field are nil
// when the dictionary does not say.
type column struct {
	name, typ    string
	about, field any
}

// columnsOf are the columns of relation name in order, described by the
// dictionary when the model has one.
func columnsOf(ctx context.Context, db *sql.DB, name string) ([]column, error) {
	described := "NULL, NULL"
	join := ""
	if ok, err := hasDictionary(ctx, db); err != nil {
		return nil, err
	} else if ok {
		described = "d.description, d.source_field"
		join = "LEFT JOIN columns d ON d.table_name = c.table_name AND d.column_name = c.column_name"
	}
	rows, err := db.QueryContext(ctx, `SELECT c.column_name, c.data_type, `+described+` FROM information_schema.columns c `+join+`
		WHERE c.table_catalog = current_database() AND c.table_schema = 'main' AND c.table_name = ? ORDER BY c.ordinal_position`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		var about, field sql.NullString
		if err := rows.Scan(&c.name, &c.typ, &about, &field); err != nil {
			return nil, err
		}
		c.about, c.field = nullable(about), nullable(field)
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// hasDictionary tells whether the read model has the columns relation.
func hasDictionary(ctx context.Context, db *sql.DB) (bool, error) {
	names, err := relations(ctx, db)
	return slices.Contains(names, "columns") && slices.Contains(names, "codes"), err
}

// nullable is s's string, or nil for NULL.
func nullable(s sql.NullString) any {
	if !s.Valid {
		return nil
	}
	return s.String
}

// DocTable is readModelDocs as docs/store.md lists it: a
// Markdown table.
func DocTable() string {
	var b strings.Builder
	b.WriteString("| table or view | what it holds |\n| --- | --- |\n")
	for _, d := range readModelDocs() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", d.name, d.about)
	}
	return b.String()
}
