package snapshot

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// dayClock is a store's clock that a test moves a day at a time.
type dayClock struct{ at time.Time }

func (c *dayClock) now() time.Time { return c.at }
func (c *dayClock) next()          { c.at = c.at.AddDate(0, 0, 1) }

// takeAt takes a snapshot of cfg's sandbox into its store with the
// store's clock at c, then moves the clock a day on.
func takeAt(t *testing.T, cfg testCfg, c *dayClock) *Summary {
	t.Helper()
	s, err := Open(context.Background(), cfg.Options, slog.New(slog.DiscardHandler), c.now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sum, err := takeWith(t, s, cfg)
	if err != nil && (sum == nil || sum.Status != StatusIncomplete) {
		t.Fatal(err)
	}
	c.next()
	return sum
}

// change is one row of the change feed, as the tests compare them.
type change struct{ table, id, op, fields string }

// feed is the changes relation's rows into snapshot to.
func feed(t *testing.T, db *sql.DB, to string) []change {
	t.Helper()
	rows, err := db.Query(`SELECT "table", id, op, coalesce(array_to_string(fields, ','), '') FROM changes WHERE to_snapshot = ? ORDER BY ALL`, to)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []change
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.table, &c.id, &c.op, &c.fields); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// historyFixture is a sandbox, a second one of the same data whose
// SubscriptionCharges list is cut short at its first page every time, and a store
// of both.
type historyFixture struct {
	sb, cut *sandbox.Server
	cfg     testCfg
	clock   *dayClock
}

func newHistoryFixture(t *testing.T) historyFixture {
	data := sandbox.Options{Seed: 5, Customers: 12}
	f := historyFixture{sb: sandboxtest.Start(t, data, ""), cut: sandboxtest.Start(t, data, "cut=SubscriptionCharges@1/0"),
		clock: &dayClock{at: time.Date(2027, 3, 1, 2, 30, 0, 0, time.UTC)}}
	f.cfg = testConfig(f.sb, t.TempDir())
	return f
}

// from is the fixture's configuration of the store, against srv.
func (f historyFixture) from(srv *sandbox.Server) testCfg {
	cfg := f.cfg
	cfg.BaseURL, cfg.FrontURL = srv.BaseURL(), srv.FrontURL()
	return cfg
}

func customerAt(t *testing.T, sb *sandbox.Server, i int) *sandbox.Customer {
	t.Helper()
	return sb.Dataset().Customers[i]
}

func setEmail(t *testing.T, sb *sandbox.Server, id, email string) {
	t.Helper()
	if err := sb.Change("Customers", id, func(r any) { r.(*sandbox.Customer).Email = email }); err != nil {
		t.Fatal(err)
	}
}

// checkVersions checks that record id has n versions in
// customers_history, each closed where the next begins, and returns
// where each begins.
func checkVersions(t *testing.T, db *sql.DB, id string, n int) []string {
	t.Helper()
	rows, err := db.Query(`SELECT snapshot_from, coalesce(snapshot_to, ''), valid_from, valid_to FROM customers_history WHERE id = ? ORDER BY valid_from`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var froms []string
	var lastTo sql.NullTime
	for rows.Next() {
		var from, to string
		var vf time.Time
		var vt sql.NullTime
		if err := rows.Scan(&from, &to, &vf, &vt); err != nil {
			t.Fatal(err)
		}
		if lastTo.Valid && !lastTo.Time.Equal(vf) {
			t.Errorf("customer %s: a version begins at %v, the one before ended at %v", id, vf, lastTo.Time)
		}
		froms, lastTo = append(froms, from), vt
	}
	if len(froms) != n {
		t.Errorf("customer %s has %d versions (from %v), want %d", id, len(froms), froms, n)
	}
	return froms
}

// checkAsOf checks that every table as of ts is snapshot snap's rows.
func checkAsOf(t *testing.T, db *sql.DB, snap string, ts time.Time) {
	t.Helper()
	for _, table := range []string{"customers", "invoices", "invoice_lines", "subscription_charges", "product_plan_charge_pricings"} {
		var diff, n int
		q := `WITH a AS (SELECT snapshot_id, id, _raw::VARCHAR AS raw FROM ` + table + `_asof(?::TIMESTAMPTZ)),
			s AS (SELECT snapshot_id, id, _raw::VARCHAR AS raw FROM ` + table + ` WHERE snapshot_id = ?)
			SELECT (SELECT count(*) FROM (SELECT * FROM a EXCEPT ALL SELECT * FROM s)) + (SELECT count(*) FROM (SELECT * FROM s EXCEPT ALL SELECT * FROM a)), (SELECT count(*) FROM s)`
		if err := db.QueryRow(q, ts, snap).Scan(&diff, &n); err != nil {
			t.Fatal(err)
		}
		if diff != 0 || n == 0 {
			t.Errorf("%s as of %v: %d rows differ from snapshot %s's %d", table, ts, diff, snap, n)
		}
	}
}
