package reconcile

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/findings"
	storemigrate "github.com/billsnap/billsnap/snapshot/migrate"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// fixture is one rule test of testdata/rules: a comment that describes
// it and sets its options (key: value lines), the rows of the snapshot
// reconciled and of the previous one as CSV sections (-- invoices --,
// -- prev.invoices --, -- snapshot_tables --) and the findings wanted
// (-- want --, one "rule entity entity_id amount currency" a line, "-"
// for no currency, in any order).
type fixture struct {
	rules     []string // the rules whose findings are compared; nil: all
	asOf      time.Time
	period    *findings.Period
	untrusted bool
	sections  map[string]string
	want      []string
}

// TestRuleFixtures runs every fixture of testdata/rules in an in-memory
// DuckDB with the shipped rules and compares the findings of the rules
// it names with those it wants, exactly: IDs, amounts and currencies.
func TestRuleFixtures(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/rules/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/rules: %v", err)
	}
	rules, err := Rules("")
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]bool{}
	for _, file := range files {
		fx := readFixture(t, file)
		for _, id := range fx.rules {
			tested[id] = true
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			r := fx.run(t, rules)
			got := fx.findings(r)
			slices.Sort(got)
			if !slices.Equal(got, fx.want) {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(fx.want, "\n"))
			}
			if r.Untrusted != fx.untrusted {
				t.Errorf("untrusted %v, want %v", r.Untrusted, fx.untrusted)
			}
		})
	}
	for _, rule := range rules {
		if !tested[rule.ID] {
			t.Errorf("rule %s has no fixture in testdata/rules", rule.ID)
		}
	}
}

func readFixture(t *testing.T, file string) fixture {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fx := fixture{sections: map[string]string{}}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		key, value, ok := strings.Cut(line, ": ")
		if ok && !strings.Contains(key, " ") {
			if err := fx.set(key, strings.TrimSpace(value)); err != nil {
				t.Fatalf("%s: %s: %v", file, key, err)
			}
		}
	}
	for _, f := range ar.Files {
		fx.sections[f.Name] = string(f.Data)
	}
	fx.want = lines(fx.sections["want"])
	slices.Sort(fx.want)
	delete(fx.sections, "want")
	if fx.asOf.IsZero() {
		t.Fatalf("%s: no as_of", file)
	}
	return fx
}

func (fx *fixture) set(key, value string) (err error) {
	switch key {
	case "rules":
		if value != "all" {
			fx.rules = strings.Fields(value)
		}
	case "as_of":
		fx.asOf, err = time.Parse(time.RFC3339, value)
	case "period":
		fx.period, err = findings.ParsePeriod(value)
	case "untrusted":
		fx.untrusted = value == "true"
	default:
		err = fmt.Errorf("unknown key")
	}
	return err
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// run loads the fixture into a new in-memory DuckDB and reconciles
// snapshot "cur" against "prev" (when the fixture has prev. sections).
func (fx *fixture) run(t *testing.T, rules []findings.Rule) *findings.Report {
	t.Helper()
	r, err := Run(context.Background(), source(fx.open(t)), fx.options(rules))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// open loads the fixture into a new in-memory DuckDB, on one thread as
// the tests' stores are (openStore).
func (fx *fixture) open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "?threads=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // one in-memory database, one connection
	if err := fx.load(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

// options reconcile the fixture's snapshot "cur" with rules.
func (fx *fixture) options(rules []findings.Rule) Options {
	return Options{SnapshotID: "cur", Period: fx.period, AsOf: fx.asOf, Grace: 48 * time.Hour,
		Rules: rules, Materiality: findings.DefaultMateriality(),
		Now: func() time.Time { return fx.asOf }}
}

// loadFixture is the fixture testdata/rules/name.txtar, loaded: for the
// tests of reconcile's options that need a snapshot, not the service.
func loadFixture(t *testing.T, name string) (*fixture, *sql.DB) {
	t.Helper()
	fx := readFixture(t, filepath.Join("testdata", "rules", name+".txtar"))
	return &fx, fx.open(t)
}

// fixtureSource is a fixture's database as what a reconciliation reads:
// the fixture's tables as the views rules read, and its stored findings
// and rechecks (runrec.Plain).
type fixtureSource struct{ runrec.Plain }

// source is db, a fixture's, as what a reconciliation reads.
func source(db *sql.DB) fixtureSource { return fixtureSource{runrec.Plain{Database: db}} }

func (f fixtureSource) Bind(ctx context.Context, conn *sql.Conn, cur, prev string) error {
	for _, schema := range []string{"cur", "prev"} {
		for _, tb := range catalog.Tables() {
			for _, q := range []string{
				fmt.Sprintf("CREATE OR REPLACE VIEW %s.%s AS SELECT * EXCLUDE (_raw) FROM memory.fx_%[1]s.%[2]s", schema, tb.Name),
				fmt.Sprintf("CREATE OR REPLACE VIEW %s.raw_%s AS SELECT * FROM memory.fx_%[1]s.%[2]s", schema, tb.Name),
			} {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					return err
				}
			}
		}
	}
	return f.Plain.Bind(ctx, conn, cur, prev)
}

// load creates the state's tables and the snapshots, and the tables of
// both with the fixture's rows.
func (fx *fixture) load(ctx context.Context, db *sql.DB) error {
	if err := storemigrate.State(ctx, db); err != nil {
		return err
	}
	if err := runrec.PlainHistory(ctx, db); err != nil {
		return err
	}
	q := "INSERT INTO snapshots (id, started, finished, status) VALUES ('cur', ?, ?, 'complete')"
	if _, err := db.ExecContext(ctx, q, fx.asOf, fx.asOf); err != nil {
		return err
	}
	if fx.hasPrev() {
		q := "INSERT INTO snapshots (id, started, finished, status) VALUES ('prev', ?, ?, 'complete')"
		if _, err := db.ExecContext(ctx, q, fx.asOf.Add(-24*time.Hour), fx.asOf.Add(-24*time.Hour)); err != nil {
			return err
		}
	}
	for _, schema := range []string{"fx_cur", "fx_prev"} {
		if _, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema); err != nil {
			return err
		}
	}
	for _, tb := range catalog.Tables() {
		for _, schema := range []string{"fx_cur", "fx_prev"} {
			if err := createFixtureTable(ctx, db, tb, schema); err != nil {
				return err
			}
		}
	}
	for name, data := range fx.sections {
		table := "fx_cur." + name
		switch {
		case name == "snapshot_tables":
			table = name
		case strings.HasPrefix(name, "prev."):
			table = "fx_prev." + strings.TrimPrefix(name, "prev.")
		}
		if err := insertCSV(ctx, db, table, data); err != nil {
			return fmt.Errorf("section %s: %w", name, err)
		}
	}
	return nil
}

func (fx *fixture) hasPrev() bool {
	for name := range fx.sections {
		if strings.HasPrefix(name, "prev.") {
			return true
		}
	}
	return false
}

// createFixtureTable creates table tb in schema, its snapshot_id and _raw
// given defaults so that a fixture names only the columns it needs.
func createFixtureTable(ctx context.Context, db *sql.DB, tb catalog.Table, schema string) error {
	name := schema + "." + tb.Name
	id := strings.TrimPrefix(schema, "fx_")
	for _, q := range []string{tb.CreateSQL(name),
		"ALTER TABLE " + name + " ALTER snapshot_id SET DEFAULT '" + id + "'",
		"ALTER TABLE " + name + " ADD COLUMN _raw JSON DEFAULT '{}'"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// insertCSV inserts the rows of data, a CSV with a header, into table;
// an empty value is NULL.
func insertCSV(ctx context.Context, db *sql.DB, table, data string) error {
	recs, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		return fmt.Errorf("CSV with a header wanted: %v", err)
	}
	if table == "snapshot_tables" && !slices.Contains(recs[0], "snapshot_id") {
		for i := range recs {
			recs[i] = append(recs[i], "cur")
		}
		recs[0][len(recs[0])-1] = "snapshot_id"
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(recs[0], ", "),
		strings.TrimSuffix(strings.Repeat("?, ", len(recs[0])), ", "))
	for _, rec := range recs[1:] {
		args := make([]any, len(rec))
		for i, v := range rec {
			if v != "" {
				args[i] = v
			}
		}
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("row %v: %w", rec, err)
		}
	}
	return nil
}

// findings are the open findings of the fixture's rules, as want lines.
func (fx *fixture) findings(r *findings.Report) []string {
	var out []string
	for _, f := range r.Open() {
		if fx.rules != nil && !slices.Contains(fx.rules, f.Rule) {
			continue
		}
		cur := f.Currency
		if cur == "" {
			cur = "-"
		}
		out = append(out, strings.Join([]string{f.Rule, f.Entity, f.EntityID, f.Amount.String(), cur}, " "))
	}
	return out
}
