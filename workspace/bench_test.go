package workspace

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// benchFindings is how many findings the benchmarks' reconciliation holds;
// CI runs them with a few thousand only to prove they work.
var benchFindings = flag.Int("findings", 100_000, "findings in the benchmarks' reconciliation")

// inflate replaces the findings of the store's latest reconciliation with
// n made-up ones spread over the rules, currencies and statuses, kept by
// the store as a reconciliation's are (KeepFindings), so that they reach
// the read model as its run records.
func inflate(b *testing.B, fx *fixture, n int) {
	b.Helper()
	ctx := context.Background()
	store, err := snapshot.OpenShared(ctx, fx.cfg.Options, quiet, time.Now)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	rules := make([]string, 0, 16)
	for _, id := range []string{"charge_not_invoiced", "zero_quantity_invoiced", "quantity_mismatch", "price_mismatch",
		"duplicate_invoicing", "invoice_total_mismatch", "missed_billing_run", "paid_without_payment"} {
		rules = append(rules, "'"+id+"'")
	}
	err = store.UpdateAndPublish(ctx, func(sec *snapshot.Section) error {
		db := sec.DB()
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		var snap string
		if err := conn.QueryRowContext(ctx, "SELECT snapshot_id FROM reconciliations ORDER BY reconciled_at DESC LIMIT 1").Scan(&snap); err != nil {
			return err
		}
		q := fmt.Sprintf(`INSERT INTO %[3]s
			SELECT ?, '', ([%[1]s])[1 + i %% 8], (['critical', 'high', 'medium', 'low'])[1 + i %% 4], 'invoice_line',
			       printf('%%08x-0000-4000-8000-%%012x', i, i), CAST((i %% 50000 - 20000) / 100 AS DECIMAL(18,2)),
			       (['EUR', 'USD', 'DKK', 'GBP'])[1 + i %% 4],
			       printf('line of invoice INV-%%07d bills 199.50 a unit; the product costs 198.00', i),
			       (['new', 'recurring', 'resolved'])[1 + i %% 3], ?, i %% 17 = 0, NULL, NULL, NULL, now(), now(), NULL, NULL,
			       printf('cus-%%06d', i %% 500), 'Customer ' || (i %% 500), printf('INV-%%07d', i)
			FROM range(%[2]d) t(i)`, strings.Join(rules, ", "), n, runrec.StagedFindings)
		if err := runrec.StageTables(ctx, conn); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, q, snap, snap); err != nil {
			return err
		}
		if err := sec.KeepFindings(ctx, conn, snap, ""); err != nil {
			return err
		}
		_, err = conn.ExecContext(ctx, "UPDATE reconciliations SET findings = ? WHERE snapshot_id = ?", n, snap)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkFindingsPage is the time to the first byte and the whole of a
// page of the findings list, over real HTTP, with *benchFindings findings
// in the reconciliation: the first page as it opens, filtered and sorted
// by amount, and a page deep in the list.
//
//	go test ./workspace -run '^$' -bench FindingsPage -benchtime 20x
func BenchmarkFindingsPage(b *testing.B) {
	fx := newFixture(b)
	inflate(b, fx, *benchFindings)
	srv := fx.serve(b, "")
	deep := max(*benchFindings/25/2, 1)
	if a := do(b, srv, call{path: "/findings"}); !strings.Contains(a.body, fmt.Sprintf(`id="count">%d findings`, *benchFindings)) {
		b.Fatalf("the list does not hold the %d findings made:\n%s", *benchFindings, a.body)
	}
	for _, c := range []struct{ name, query string }{
		{"first", ""},
		{"filtered-sorted", "currency=EUR&status=open&sort=amount&dir=desc"},
		{"search", "q=0000a"},
		{"deep", fmt.Sprintf("page=%d", deep)},
	} {
		b.Run(c.name, func(b *testing.B) {
			if a := do(b, srv, call{path: "/findings?" + c.query}); a.status != http.StatusOK || !strings.Contains(a.body, `id="findings"`) {
				b.Fatalf("%d %s", a.status, a.body)
			}
			for b.Loop() {
				do(b, srv, call{path: "/findings?" + c.query})
			}
		})
	}
	b.Run("overview", func(b *testing.B) {
		for b.Loop() {
			do(b, srv, call{path: "/"})
		}
	})
	b.Run("api-all", func(b *testing.B) {
		for b.Loop() {
			do(b, srv, call{path: "/api/findings"})
		}
	})
}

// benchDays is how many daily exports BenchmarkHistoryPages's store
// takes, and benchOut where it keeps it ("": a directory removed after).
var (
	benchDays = flag.Int("history-days", 365, "daily exports in BenchmarkHistoryPages's store")
	benchOut  = flag.String("history-out", "", "where BenchmarkHistoryPages keeps its store (default: a temporary directory)")
)

// BenchmarkHistoryPages times the pages of history over real HTTP on a
// store of *benchDays complete snapshots of a small sandbox whose first
// customer's Email changes every day and its second's name every other
// day: the
// first customer's record page (a version a day, its timeline), the
// overview with its changes, the changes page and its API, and last
// month's flux review (its API and its panel).
//
//	go test ./workspace -run '^$' -bench HistoryPages -benchtime 20x
func BenchmarkHistoryPages(b *testing.B) {
	sb := sandboxtest.Start(b, sandbox.Options{Seed: 3, Customers: 4}, "")
	fx := &fixture{sb: sb, cfg: fixtureConfig(sb, cmp.Or(*benchOut, b.TempDir()))}
	cs := sb.Dataset().Customers
	daily := cs[0].ID
	for day := 1; day <= *benchDays; day++ {
		churn(b, sb, day, cs[1].ID)
		setBenchEmail(b, sb, daily, fmt.Sprintf("day-%03d@example.com", day))
		fx.export(b)
	}
	fx.reconcile(b)
	month := findings.MonthOf(time.Now(), -1)
	fx.reconcilePeriod(b, month)
	srv := fx.serve(b, "")
	if p := do(b, srv, call{path: "/entities/customer/" + daily}).body; strings.Count(p, `<li class="version`) != *benchDays {
		b.Fatalf("customer %s's timeline shows %d versions, not its %d:\n%s", daily, strings.Count(p, `<li class="version`), *benchDays, timelineOf(p))
	}
	b.Run("timeline-query", func(b *testing.B) { benchTimeline(b, fx, daily) })
	for _, path := range []string{"/entities/customer/" + daily, "/", "/changes", "/changes?table=customers&op=update", "/api/changes",
		"/api/flux?period=" + month.String(), "/flux?period=" + month.String()} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				if a := do(b, srv, call{path: path}); a.status != http.StatusOK {
					b.Fatalf("%d %s", a.status, a.body)
				}
			}
		})
	}
}

// churn changes the sandbox for day: customer name's FullName every
// other day.
func churn(b *testing.B, sb *sandbox.Server, day int, name string) {
	b.Helper()
	if day%2 != 0 {
		return
	}
	if err := sb.Change("Customers", name, func(r any) { r.(*sandbox.Customer).FullName = fmt.Sprintf("Name of day %d", day) }); err != nil {
		b.Fatal(err)
	}
}

// benchTimeline times the query of customer id's timeline alone, on the
// read model.
func benchTimeline(b *testing.B, fx *fixture, id string) {
	db, err := snapshot.OpenRead(context.Background(), fx.cfg.Options)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for b.Loop() {
		if vs, err := readmodel.Timeline(context.Background(), db, "customers", id); err != nil || len(vs) != *benchDays {
			b.Fatalf("%d versions, %v", len(vs), err)
		}
	}
}

func setBenchEmail(b *testing.B, sb *sandbox.Server, id, email string) {
	b.Helper()
	if err := sb.Change("Customers", id, func(r any) { r.(*sandbox.Customer).Email = email }); err != nil {
		b.Fatal(err)
	}
}
