package modelfile

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// The read model's data dictionary, for analysts who have only the
// DuckDB file: the table columns (table_name, column_name, type,
// description, source_field), one row per column of every relation of
// the model, the history and change-feed relations included; the table
// codes (table_name, column_name, code, label), one row per known value
// of a coded column; and the macro label(table_name, column_name, code),
// a code's label, for a catalogue table's latest_, incomplete_ and
// _history relations as for the table. The catalogue's tables are
// described by the catalogue (catalog.Table.Docs, with the fields key
// applied), billsnap's own relations here. They are small native tables
// made from one literal each (textTable) with the views, and kept with
// them in the template: their statements are in the views' key, so a
// description or a code that changes makes them anew. (Views over the same VALUES took 26-27 ms
// to read, DuckDB parsing their 84 KB of SQL at each query; the tables
// 0.5 ms, for 20-40 ms more when they are made.)

// dictionary are the statements of the data dictionary of a model whose
// tables are tables (the fields key applied).
func dictionary(tables []catalog.Table) []string {
	var cols, codes [][]sql.NullString
	for _, r := range documented(tables) {
		for _, c := range r.columns {
			cols = append(cols, []sql.NullString{text(r.name), text(c.Name), text(c.Type), text(c.Description),
				{String: c.Field, Valid: c.Field != ""}})
		}
	}
	for _, cc := range codedColumns(tables) {
		for _, code := range cc.codes {
			codes = append(codes, []sql.NullString{text(cc.table), text(cc.column), text(code.Code), text(code.Label)})
		}
	}
	return []string{
		textTable("columns", []string{"table_name", "column_name", `"type"`, "description", "source_field"}, cols),
		textTable("codes", []string{"table_name", "column_name", "code", "label"}, codes),
		`CREATE OR REPLACE MACRO label(t, c, v) AS
		(SELECT max(d.label) FROM codes d WHERE d.column_name = c AND d.code = CAST(v AS VARCHAR)
			AND t IN (d.table_name, 'latest_' || d.table_name, 'incomplete_' || d.table_name, d.table_name || '_history'))`,
	}
}

// text is s, not NULL.
func text(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }

// The characters textTable joins rows and values with, and writes for NULL.
const (
	rowSep   = "\x1e" // record separator
	valueSep = "\x1f" // unit separator
	nullMark = "\x1d" // group separator
)

// textTable is the statement that makes table name, of VARCHAR columns
// named names, holding rows (a row's values in the order of names), in
// their order. The rows go as one string literal, split into rows and
// values on control characters, which DuckDB binds in 6–7 ms for the
// columns' 700 rows, against 22–31 ms for a list literal a column
// (textLists) and 95–149 ms for as many rows of VALUES. No rows, or a
// value that holds one of those characters, go as textLists.
func textTable(name string, names []string, rows [][]sql.NullString) string {
	if len(rows) == 0 {
		return textLists(name, names, rows)
	}
	var b strings.Builder
	for j, r := range rows {
		if j > 0 {
			b.WriteString(rowSep)
		}
		for i, v := range r {
			if strings.ContainsAny(v.String, rowSep+valueSep+nullMark) {
				return textLists(name, names, rows)
			}
			if i > 0 {
				b.WriteString(valueSep)
			}
			if !v.Valid {
				v.String = nullMark
			}
			b.WriteString(v.String)
		}
	}
	cols := make([]string, len(names))
	for i, n := range names {
		cols[i] = fmt.Sprintf("nullif(v[%d], chr(%d)) AS %s", i+1, nullMark[0], n)
	}
	return fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT %s\n\t\tFROM (SELECT string_split(unnest(string_split(%s, chr(%d))), chr(%d)) AS v)",
		name, strings.Join(cols, ", "), state.SQLString(b.String()), rowSep[0], valueSep[0])
}

// textLists is textTable's statement as a list literal a column, unnested
// side by side.
func textLists(name string, names []string, rows [][]sql.NullString) string {
	lists := make([]string, len(names))
	for i, n := range names {
		vals := make([]string, len(rows))
		for j, r := range rows {
			vals[j] = "NULL"
			if r[i].Valid {
				vals[j] = state.SQLString(r[i].String)
			}
		}
		lists[i] = fmt.Sprintf("unnest(CAST([%s] AS VARCHAR[])) AS %s", strings.Join(vals, ", "), n)
	}
	return fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT %s", name, strings.Join(lists, ",\n\t\t"))
}

// labelled is rel, the rows of table t with snapshot_id first, with the
// label of each coded column beside it (status, then status_label): the
// columns up to the last coded one named (the catalogue's own, which
// every snapshot has), then the rest as rel has them (the columns the
// fields key added, as many as the files kept have, and _raw). A table
// without a coded column is rel itself.
func labelled(t catalog.Table, rel string) string {
	docs := t.Docs()
	last := -1
	for i, d := range docs {
		if len(d.Codes) > 0 {
			last = i
		}
	}
	if last < 0 {
		return rel
	}
	named := []string{`"snapshot_id"`}
	list := []string{`"snapshot_id"`}
	for _, d := range docs[:last+1] {
		named = append(named, quoteIdent(d.Name))
		list = append(list, quoteIdent(d.Name))
		if len(d.Codes) > 0 {
			list = append(list, labelSQL(d))
		}
	}
	return fmt.Sprintf("SELECT %s, * EXCLUDE (%s) FROM (%s)", strings.Join(list, ", "), strings.Join(named, ", "), rel)
}

// treeRows is the relation of every complete snapshot's rows of table t,
// as the Parquet has them (_raw among them): its view, without labels.
func treeRows(t catalog.Table) string { return t.WithoutLabels(quoteIdent(t.Name)) }

// labelSQL is the expression of coded column d's label column: NULL for
// a code the catalogue does not know.
func labelSQL(d catalog.ColumnDoc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CASE CAST(%s AS VARCHAR)", quoteIdent(d.Name))
	for _, c := range d.Codes {
		fmt.Fprintf(&b, " WHEN %s THEN %s", state.SQLString(c.Code), state.SQLString(c.Label))
	}
	fmt.Fprintf(&b, " END AS %s", quoteIdent(catalog.LabelColumn(d.Name)))
	return b.String()
}

// quoteIdent is name as an SQL identifier, quoted.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// relationColumns are a relation's columns, described, in order.
type relationColumns struct {
	name    string
	columns []catalog.ColumnDoc
}

// documented are the relations the dictionary describes, every column of
// each: per table latest_<table>, <table> (with its labels),
// incomplete_<table>, <table>_history; then changes, history_snapshots
// and billsnap's own relations.
func documented(tables []catalog.Table) []relationColumns {
	var out []relationColumns
	for _, t := range tables {
		docs := t.Docs()
		snap := func(about string) catalog.ColumnDoc {
			return catalog.ColumnDoc{Name: "snapshot_id", Type: "VARCHAR", Description: about}
		}
		out = append(out,
			relationColumns{"latest_" + t.Name, append([]catalog.ColumnDoc{snap("the snapshot the row is of, the newest complete one (snapshots.id)")}, docs[:len(docs)-1]...)}, // no _raw
			relationColumns{t.Name, append([]catalog.ColumnDoc{snap("the complete snapshot the row is of (snapshots.id)")}, withLabels(docs)...)},
			relationColumns{"incomplete_" + t.Name, append([]catalog.ColumnDoc{snap("the incomplete snapshot the row is of (snapshots.id)")}, withLabels(docs)...)},
			relationColumns{t.Name + "_history", append(docs, validity...)})
	}
	return append(append(out, changeFeed...), ownRelations...)
}

// withLabels is docs with each coded column's label column after it.
func withLabels(docs []catalog.ColumnDoc) []catalog.ColumnDoc {
	var out []catalog.ColumnDoc
	for _, d := range docs {
		out = append(out, d)
		if len(d.Codes) > 0 {
			out = append(out, catalog.ColumnDoc{Name: catalog.LabelColumn(d.Name), Type: "VARCHAR",
				Description: fmt.Sprintf("the label of %s's code (the codes relation); NULL for a code it does not list", d.Name)})
		}
	}
	return out
}

// codedColumn is a column's codes, by the relation that names them: a
// catalogue table's codes hold for its latest_, incomplete_ and _history
// relations too.
type codedColumn struct {
	table, column string
	codes         []catalog.Code
}

// codedColumns are the coded columns of tables, then billsnap's own.
func codedColumns(tables []catalog.Table) []codedColumn {
	var out []codedColumn
	for _, t := range tables {
		for _, c := range t.Columns {
			if len(c.Codes) > 0 {
				out = append(out, codedColumn{t.Name, c.Name, c.Codes})
			}
		}
	}
	return append(out, ownCodes()...)
}

const (
	varchar     = "VARCHAR"
	timestamptz = "TIMESTAMP WITH TIME ZONE"
	bigint      = "BIGINT"
	integer     = "INTEGER"
	boolean     = "BOOLEAN"
)

// column describes a column of billsnap's own, which no field fills.
func column(name, typ, about string) catalog.ColumnDoc {
	return catalog.ColumnDoc{Name: name, Type: typ, Description: about}
}

// validity are the columns a <table>_history has after the columns of
// latest_<table> but snapshot_id.
var validity = []catalog.ColumnDoc{
	column("valid_from", timestamptz, "the time of the first complete snapshot that held this version of the record"),
	column("valid_to", timestamptz, "the time of the first complete snapshot in which the record had changed or was absent; NULL while the version is current"),
	column("snapshot_from", varchar, "the first complete snapshot that held this version (snapshots.id)"),
	column("snapshot_to", varchar, "the first complete snapshot in which the record had changed or was absent (snapshots.id); NULL while the version is current"),
}

// changeFeed are the change feed's relations.
var changeFeed = []relationColumns{
	{"changes", []catalog.ColumnDoc{
		column("table", varchar, "the table of the record that changed"),
		column("id", varchar, "the record's id in that table"),
		column("op", varchar, "insert, update or delete (codes)"),
		{Name: "fields", Type: "VARCHAR[]", Description: "for an update, the service's names of the fields that changed"},
		column("from_snapshot", varchar, "the complete snapshot before the change (snapshots.id)"),
		column("to_snapshot", varchar, "the complete snapshot that first showed the change (snapshots.id)"),
		column("at", timestamptz, "the time of to_snapshot"),
		{Name: "old_values", Type: "JSON", Description: "for an update, the changed fields' values before, keyed by the service's field names"},
		{Name: "new_values", Type: "JSON", Description: "for an update, the changed fields' values after, keyed by the service's field names"},
	}},
	{"history_snapshots", []catalog.ColumnDoc{
		column("snapshot_id", varchar, "a complete snapshot the history holds (snapshots.id)"),
		column("at", timestamptz, "the snapshot's time, which valid_from, valid_to and a change's at hold"),
	}},
	{"history_steps", []catalog.ColumnDoc{
		column("snapshot", varchar, "the complete snapshot that took the step (snapshots.id)"),
		column("table_name", varchar, "the table it stepped"),
		column("at", timestamptz, "the snapshot's time"),
		column("previous", varchar, "the snapshot of the step before; NULL for the first, the base, which records no change"),
		column("inserted", bigint, "records it inserted (the base: every record)"),
		column("updated", bigint, "records whose fields changed"),
		column("deleted", bigint, "records it no longer held"),
		column("pack", varchar, "the file that holds its closed versions and changes with those of the steps around it (history's packs); NULL while they are files of their own"),
	}},
}

// ownRelations are billsnap's own relations: the records' views, the
// model's own tables and the dictionary itself.
var ownRelations = []relationColumns{
	{"snapshots", snapshotDocs},
	{"latest_snapshot", snapshotDocs},
	{"snapshot_tables", []catalog.ColumnDoc{
		column("snapshot_id", varchar, "the snapshot (snapshots.id)"),
		column("table_name", varchar, "the table"),
		column("collection", varchar, "the service's list whose walk filled it (the parent's, for a child table)"),
		column("walks", integer, "how many times the list was walked"),
		column("pages", integer, "pages fetched"),
		column("records_received", bigint, "records received, repeats included"),
		column("distinct_ids", bigint, "distinct record IDs received; NULL for a child table"),
		column("total_count", bigint, "the TotalCount the service's Paging said; NULL for a child table, which has no list of its own"),
		column("parquet_rows", bigint, "rows written to Parquet"),
		column("duckdb_rows", bigint, "rows loaded into DuckDB"),
		column("ids_sha256", varchar, "the SHA-256 of the table's sorted IDs"),
		column("seconds", "DOUBLE", "how long the table took, in seconds"),
		column("complete", boolean, "whether the table's distinct IDs equal its TotalCount"),
		column("problem", varchar, "what kept it from being complete; NULL when it is"),
	}},
	{"snapshot_fields", []catalog.ColumnDoc{
		column("snapshot_id", varchar, "the snapshot (snapshots.id)"),
		column("table_name", varchar, "the table"),
		column("column_name", varchar, "the typed column; for a nested list, the child table; NULL for a new field, which has none"),
		column("field", varchar, "the service's field"),
		column("kind", varchar, "the column's kind (codes); NULL for a new field"),
		column("contract", boolean, "whether the spec defines the field (docs/fields.md)"),
		column("nulls", bigint, "values that were JSON null or missing"),
		column("strings", bigint, "values that were JSON strings"),
		column("numbers", bigint, "values that were JSON numbers"),
		column("booleans", bigint, "values that were JSON booleans"),
		column("objects", bigint, "values that were JSON objects"),
		column("arrays", bigint, "values that were JSON arrays"),
		column("coerced", bigint, "values of another JSON type read without loss"),
		column("untyped", bigint, "values left NULL in the column and kept in _raw"),
		column("example_id", varchar, "a record with an untyped value, else a coerced one; for a new field the first that sent it"),
		column("repaired", bigint, "text values not valid UTF-8, repaired; NULL in a snapshot taken before billsnap counted them"),
	}},
	{"reconciliations", []catalog.ColumnDoc{
		column("snapshot_id", varchar, "the snapshot reconciled (snapshots.id)"),
		column("period", varchar, "the month reconciled, YYYY-MM; NULL for the whole snapshot"),
		column("as_of", timestamptz, "the time the rules judged as of"),
		column("reconciled_at", timestamptz, "when the reconciliation ran"),
		column("findings", bigint, "how many findings it found"),
		column("material", boolean, "whether what it found was material (exit 3)"),
	}},
	{"reconciliation_totals", []catalog.ColumnDoc{
		column("snapshot_id", varchar, "the snapshot reconciled (snapshots.id)"),
		column("period", varchar, "the month reconciled, YYYY-MM; NULL for the whole snapshot"),
		column("severity", varchar, "the findings' severity (codes)"),
		column("currency", varchar, "the currency of the amount, ISO 4217"),
		column("findings", bigint, "open findings not waived"),
		{Name: "amount", Type: "DECIMAL(18,2)", Description: "their amount, in currency"},
	}},
	{"findings", findingsDocs},
	{"unjudged", []catalog.ColumnDoc{
		column("snapshot_id", varchar, "the snapshot reconciled (snapshots.id)"),
		column("period", varchar, "the month reconciled, YYYY-MM; NULL for the whole snapshot"),
		column("rule", varchar, "the rule that could not judge the record"),
		column("entity_id", varchar, "the record not judged"),
		column("table_name", varchar, "the table whose field arrived untyped"),
		column("field", varchar, "the service's field that arrived untyped"),
		column("json_type", varchar, "the JSON type it arrived as"),
		column("reconciled_at", timestamptz, "when the reconciliation ran"),
	}},
	{"rechecks", []catalog.ColumnDoc{
		column("snapshot_id", varchar, "the snapshot of the finding rechecked (snapshots.id)"),
		column("rule", varchar, "the finding's rule"),
		column("entity_id", varchar, "the finding's record"),
		column("live", varchar, "what the service showed when rechecked: confirmed, changed or gone (codes)"),
		column("checked_at", timestamptz, "when billsnap recheck read it"),
		column("detail", varchar, "what changed, or why it is gone; empty when confirmed"),
	}},
	{"field_ids", []catalog.ColumnDoc{
		column("table_name", varchar, "the table"),
		column("column_name", varchar, "the column"),
		column("kind", varchar, "the column's kind (codes)"),
		column("field_id", integer, "the Parquet field ID the column has"),
		column("first_snapshot", varchar, "the first snapshot that had it (snapshots.id)"),
	}},
	{"runs", []catalog.ColumnDoc{
		column("id", varchar, "the run's ID"),
		column("job", varchar, "the job run: export, reconcile, report …"),
		column("schedule", varchar, "the schedule that started it; none when run by hand"),
		column("period", varchar, "the month the job was for, YYYY-MM; NULL for none"),
		column("pid", integer, "the process ID"),
		column("host", varchar, "the host it ran on"),
		column("started", timestamptz, "when it started"),
		column("alive", timestamptz, "its last heartbeat"),
		column("finished", timestamptz, "when it ended; NULL while it runs"),
		column("status", varchar, "how it ended (codes)"),
		column("exit_code", integer, "its exit code"),
		column("snapshot_id", varchar, "the snapshot it took or read (snapshots.id)"),
		column("error", varchar, "why it failed; NULL otherwise"),
	}},
	{"run_files", []catalog.ColumnDoc{
		column("kind", varchar, "what the file holds (codes)"),
		column("snapshot_id", varchar, "the snapshot of the run (snapshots.id)"),
		column("period", varchar, "the month reconciled, YYYY-MM; NULL for the whole snapshot"),
		column("seq", bigint, "the file's number, unique in the store"),
		column("rows", bigint, "how many rows it holds"),
		column("file", varchar, "its name, under records/<kind>/"),
	}},
	{"billsnap_model", []catalog.ColumnDoc{
		column("key", varchar, "latest: the snapshot the latest_ tables hold; views: the key of the views"),
		column("value", varchar, "its value"),
	}},
	{"columns", []catalog.ColumnDoc{
		column("table_name", varchar, "a table or view of the read model"),
		column("column_name", varchar, "one of its columns"),
		column("type", varchar, "the column's DuckDB type, as information_schema spells it"),
		column("description", varchar, "what the column holds"),
		column("source_field", varchar, "the service's JSON field the column comes from; NULL for billsnap's own columns"),
	}},
	{"codes", []catalog.ColumnDoc{
		column("table_name", varchar, "the table (for a collection's: its latest_, incomplete_ and _history relations too)"),
		column("column_name", varchar, "the coded column"),
		column("code", varchar, "a value it holds, as text"),
		column("label", varchar, "what the value means"),
	}},
}

// snapshotDocs are the columns of snapshots and latest_snapshot.
var snapshotDocs = []catalog.ColumnDoc{
	column("id", varchar, "the snapshot's ID: its UTC start time, 2026-11-22T030005Z"),
	column("started", timestamptz, "when the export started"),
	column("finished", timestamptz, "when the export ended; NULL while it runs"),
	column("status", varchar, "running, publishing, complete, incomplete or failed (codes)"),
	column("base_url", varchar, "the service's base URL the snapshot was taken from"),
	column("front_url", varchar, "the service's paged list URL the snapshot was taken from"),
	column("error", varchar, "why the snapshot failed or is incomplete; NULL otherwise"),
}

// findingsDocs are the columns of findings.
var findingsDocs = []catalog.ColumnDoc{
	column("snapshot_id", varchar, "the snapshot reconciled (snapshots.id)"),
	column("period", varchar, "the month reconciled, YYYY-MM; NULL for the whole snapshot"),
	column("rule", varchar, "the rule that found it (reconcile/rules)"),
	column("severity", varchar, "the rule's severity (codes)"),
	column("entity", varchar, "the kind of record found: invoice, invoice_line, subscription_charge …"),
	column("entity_id", varchar, "the record found"),
	{Name: "amount", Type: "DECIMAL(18,2)", Description: "the money at stake, in currency"},
	column("currency", varchar, "the currency of amount, ISO 4217"),
	column("detail", varchar, "what the rule says of the record"),
	column("status", varchar, "against the previous complete snapshot's findings: new, recurring or resolved (codes)"),
	column("first_seen", varchar, "the snapshot it was first found in (snapshots.id)"),
	column("waived", boolean, "whether a waiver covers it"),
	column("waiver_reason", varchar, "the waiver's reason"),
	column("waiver_owner", varchar, "the waiver's owner"),
	column("waiver_expires", "DATE", "the day the waiver expires"),
	column("as_of", timestamptz, "the time the rules judged as of"),
	column("reconciled_at", timestamptz, "when the reconciliation ran"),
	column("waiver_id", varchar, "the waiver's ID, when made in the workspace"),
	column("waiver_by", varchar, "who made the waiver in the workspace"),
	column("customer_id", varchar, "the record's customer (customers.id); NULL when not known"),
	column("customer_name", varchar, "that customer's name; NULL when not known"),
	column("invoice_number", varchar, "the record's invoice's number; NULL when not known"),
}

// ownCodes are the codes of billsnap's own coded columns.
func ownCodes() []codedColumn {
	snapshot, severity, kinds := snapshotCodes(), severityCodes(), kindCodes()
	columnKinds := append(kinds, code(catalog.RawKind, "json: the record as sent (_raw), JSON"))
	fieldKinds := append(kinds[:len(kinds):len(kinds)], code("list", "list: a nested list, whose items are the child table column_name names"))
	return []codedColumn{
		{"snapshots", "status", snapshot},
		{"latest_snapshot", "status", snapshot},
		{"changes", "op", []catalog.Code{
			code("insert", "insert: the record is in to_snapshot and was not in from_snapshot"),
			code("update", "update: the record's fields named in fields changed"),
			code("delete", "delete: the record was in from_snapshot and is not in to_snapshot"),
		}},
		{"findings", "status", []catalog.Code{
			code(findings.StatusNew, "new: not found in the previous complete snapshot"),
			code(findings.StatusRecurring, "recurring: found in the previous complete snapshot too"),
			code(findings.StatusResolved, "resolved: found before and not now"),
		}},
		{"findings", "severity", severity},
		{"reconciliation_totals", "severity", severity},
		{"rechecks", "live", []catalog.Code{
			code("confirmed", "confirmed: the service still shows it"),
			code("changed", "changed: the service shows the record otherwise"),
			code("gone", "gone: the service no longer has the record"),
		}},
		{"runs", "status", []catalog.Code{
			code(journal.Running, "running: under way"),
			code(journal.OK, "ok: ran and found nothing material"),
			code(journal.Material, "material: ran and found something material (exit 3)"),
			code(journal.Failed, "failed: exit 1 or 2"),
			code(journal.Refused, "refused: another billsnap held the directory past lock_wait (exit 1)"),
			code(journal.Interrupted, "interrupted: SIGINT or SIGTERM (exit 130)"),
			code(journal.Killed, "killed: ended without recording its end (SIGKILL, the OOM killer, a power cut)"),
		}},
		{"run_files", "kind", runKindCodes()},
		{"field_ids", "kind", columnKinds},
		{"snapshot_fields", "kind", fieldKinds},
	}
}

// snapshotCodes are the statuses of a snapshot.
func snapshotCodes() []catalog.Code {
	return []catalog.Code{
		code("running", "running: the export is walking the service"),
		code("publishing", "publishing: in DuckDB, its Parquet being renamed into place"),
		code("complete", "complete: every list's distinct IDs equal its TotalCount; published"),
		code("incomplete", "incomplete: a list stayed inconsistent (exit 3); kept under incomplete/, not published"),
		code("failed", "failed: the export failed or was stopped; nothing published"),
	}
}

// severityCodes are the rules' severities, gravest first.
func severityCodes() []catalog.Code {
	var out []catalog.Code
	for i, sv := range findings.Severities() {
		label := sv
		switch i {
		case 0:
			label += ": the gravest"
		case len(findings.Severities()) - 1:
			label += ": the least grave"
		}
		out = append(out, code(sv, label))
	}
	return out
}

// kindCodes are the kinds of the catalogue's typed columns, each with
// its DuckDB type.
func kindCodes() []catalog.Code {
	var out []catalog.Code
	for k := catalog.String; k <= catalog.Float; k++ {
		out = append(out, code(k.String(), k.String()+": "+k.TypeName()))
	}
	return out
}

// runKindCodes are the kinds of run records.
func runKindCodes() []catalog.Code {
	var out []catalog.Code
	for _, k := range runrec.Kinds() {
		out = append(out, code(k.Name, runKindLabels[k.Name]))
	}
	return out
}

// runKindLabels say what each kind of run record holds.
var runKindLabels = map[string]string{
	"findings": "findings: what a reconciliation found",
	"unjudged": "unjudged: what a reconciliation could not judge",
	"rechecks": "rechecks: what billsnap recheck found",
}

// code is code c with its label.
func code(c, label string) catalog.Code { return catalog.Code{Code: c, Label: label} }
