package workspace

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// reconciliationReads is what the workspace reads of one reconciliation
// (id, period) through the read model's queries, the rules in the order
// of rules, as one comparable value.
func reconciliationReads(ctx context.Context, db *sql.DB, id, period string, rules []string) (string, error) {
	order := readmodel.Order{Rules: rules}
	fs, err := readmodel.Findings(ctx, db, readmodel.Relations{}, id, period, readmodel.Filter{}, order, readmodel.Page{})
	if err != nil {
		return "", fmt.Errorf("Findings: %w", err)
	}
	n, err := readmodel.CountFindings(ctx, db, id, period, readmodel.Filter{Status: "open"})
	if err != nil {
		return "", fmt.Errorf("CountFindings: %w", err)
	}
	cs, err := readmodel.Currencies(ctx, db, id, period)
	if err != nil {
		return "", fmt.Errorf("Currencies: %w", err)
	}
	ts, err := readmodel.RuleTotals(ctx, db, id, period, order.Rules)
	if err != nil {
		return "", fmt.Errorf("RuleTotals: %w", err)
	}
	nameless, err := readmodel.Nameless(ctx, db, id, period, findings.IncompleteRule)
	if err != nil {
		return "", fmt.Errorf("Nameless: %w", err)
	}
	sev, err := readmodel.OpenBySeverity(ctx, db, id, period)
	if err != nil {
		return "", fmt.Errorf("OpenBySeverity: %w", err)
	}
	nj, err := readmodel.NotJudged(ctx, db, id, period)
	if err != nil {
		return "", fmt.Errorf("NotJudged: %w", err)
	}
	var keys []string
	for _, f := range fs {
		keys = append(keys, readmodel.WaiverKey(f.Rule, f.EntityID))
	}
	pend, err := readmodel.Pending(ctx, db, id, period, keys)
	if err != nil {
		return "", fmt.Errorf("Pending: %w", err)
	}
	return fmt.Sprintf("%+v\n%d %q %+v %d %v %+v %v", fs, n, cs, ts, nameless, sev, nj, pend), nil
}

// TestAReconciliationsQueriesReadItsOwnFiles: what the workspace reads of
// one reconciliation (its findings, counts, totals, facets) reads that
// reconciliation's run files alone, which the index lists, not every file
// the store keeps; a snapshot with none has none; and a read model
// published before its macros reads the same through its views.
func TestAReconciliationsQueriesReadItsOwnFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fx := newFixture(t)
	id := fx.reconciled.Snapshot.ID
	var rules []string
	for _, r := range fx.reconciled.Rules {
		rules = append(rules, r.ID)
	}
	db, err := snapshot.OpenRead(ctx, fx.cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want, err := reconciliationReads(ctx, db, id, "", rules)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(fx.reconciled.Findings); n == 0 || want == "" {
		t.Fatal("the fixture's reconciliation has no finding")
	}

	// A read model of an earlier billsnap: no macros <kind>_in.
	old := filepath.Join(t.TempDir(), "old.duckdb")
	if err := fileutil.CopyFile(filepath.Join(fx.cfg.Out, fx.cfg.DuckDB.File), old, false); err != nil {
		t.Fatal(err)
	}
	dropMacros(t, old)
	oldDB, err := readmodel.Open(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	defer oldDB.Close()
	if got, err := reconciliationReads(ctx, oldDB, id, "", rules); err != nil || got != want {
		t.Errorf("a read model without the macros reads otherwise (%v):\n%s", err, firstDiff(got, want))
	}
	if n, err := readmodel.CountFindings(ctx, oldDB, "2000-01-02T000000Z", "", readmodel.Filter{}); err != nil || n != 0 {
		t.Errorf("a read model without the macros: a snapshot without run files has %d findings, %v; want 0", n, err)
	}

	// Another snapshot's files that no Parquet reader can open: a query of
	// this reconciliation that opened them would fail.
	for _, k := range runrec.Kinds() {
		bad := filepath.Join(layout.Dir(fx.cfg.Out).History(), k.Name, "2000-01-01T000000Z.1.parquet")
		if err := os.WriteFile(bad, []byte("not Parquet"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := reconciliationReads(ctx, db, id, "", rules); err != nil || got != want {
		t.Errorf("with another snapshot's files unreadable, the reconciliation reads otherwise (%v):\n%s", err, firstDiff(got, want))
	}
	if n, err := readmodel.CountFindings(ctx, db, "2000-01-02T000000Z", "", readmodel.Filter{}); err != nil || n != 0 {
		t.Errorf("a snapshot without run files has %d findings, %v; want 0", n, err)
	}
	srv := fx.serve(t, "")
	for _, path := range []string{"/", "/findings"} {
		if a := do(t, srv, call{method: "GET", path: path}); a.status != http.StatusOK {
			t.Errorf("GET %s with another snapshot's files unreadable: %d %s", path, a.status, a.body)
		}
	}
}

// dropMacros takes the run records' macros out of the read model at path.
func dropMacros(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, k := range runrec.Kinds() {
		if _, err := db.Exec("DROP MACRO TABLE " + k.Name + "_in"); err != nil {
			t.Fatal(err)
		}
	}
}

// firstDiff is where got first differs from want, with a little of each.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-40)
	return fmt.Sprintf("at byte %d: got …%.120s…, want …%.120s…", i, got[from:], want[from:])
}
