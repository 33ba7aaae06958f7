package reconcile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Options say what to reconcile and how.
type Options struct {
	SnapshotID  string           // an ID, Latest ("" too) or Previous
	Period      *findings.Period // nil: no period
	AsOf        time.Time        // zero: the snapshot's start
	Grace       time.Duration    // rule 7
	Rules       []findings.Rule  // from Rules
	Waivers     []findings.Waiver
	Materiality findings.Materiality
	Now         func() time.Time
	Log         *slog.Logger // nil: no log
}

// Source is what a reconciliation reads, and where it leaves what it
// found: a store's reading (snapshot.Store.Read), whose staged findings
// the store then keeps (snapshot.Store.Keep), or a plain database
// (runrec.Plain).
type Source interface {
	// DB is the state: snapshots, latest_snapshot and the stored
	// reconciliations.
	DB() *sql.DB
	// Bind makes the views cur.<table> and prev.<table> on conn show the
	// rows of snapshots cur and prev ("" : empty views) with the latest_
	// tables' columns, cur.raw_<table> and prev.raw_<table> the same rows
	// with _raw (which the untyped check reads), and prev.stored_findings
	// and cur.stored_rechecks their run records.
	Bind(ctx context.Context, conn *sql.Conn, cur, prev string) error
	// Stage takes what Run staged on conn (runrec.StagedFindings and
	// StagedUnjudged) as the findings of rec's snapshot and period.
	Stage(ctx context.Context, conn *sql.Conn, rec runrec.Reconciliation) error
}

// Check reports what makes the options unusable before any snapshot is
// read: a materiality threshold for a rule that does not exist. Run checks
// too; a caller checks first to refuse a configuration early.
func (o Options) Check() error { return checkMateriality(o.Materiality, o.Rules) }

// Latest and Previous name snapshots by place: the latest complete one, and
// the complete one before it.
const (
	Latest   = "latest"
	Previous = "previous"
)

// UnknownSnapshotError is a snapshot ID that names none; Newest are the
// newest few snapshots, newest first, each with its status.
type UnknownSnapshotError struct {
	ID     string
	Newest []string
}

func (e *UnknownSnapshotError) Error() string {
	if len(e.Newest) == 0 {
		return fmt.Sprintf("no snapshot %q: the store holds none yet", e.ID)
	}
	return fmt.Sprintf("no snapshot %q; the newest are %s (or say latest or previous)", e.ID, strings.Join(e.Newest, ", "))
}

// unknownSnapshot is the error for id, listing the newest five snapshots.
func unknownSnapshot(ctx context.Context, conn *sql.Conn, id string) error {
	newest, err := readmodel.Snapshots(ctx, conn, 5)
	if err != nil {
		return err
	}
	e := &UnknownSnapshotError{ID: id}
	for _, s := range newest {
		e.Newest = append(e.Newest, s.ID+" ("+s.Status+")")
	}
	return e
}

// ErrNoSnapshot is returned when there is no snapshot to reconcile.
var ErrNoSnapshot = errors.New("no complete snapshot to reconcile: run billsnap export first")

// Run reconciles one snapshot of src, hands src what it found (its
// findings, what it did not judge, its totals: Source.Stage) and returns
// the report. It writes nothing to the state.
func Run(ctx context.Context, src Source, o Options) (*findings.Report, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	conn, err := src.DB().Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := migrate(ctx, conn); err != nil {
		return nil, err
	}
	r := &findings.Report{Period: o.Period, Rules: o.Rules}
	if err := resolve(ctx, conn, o.SnapshotID, r); err != nil {
		return nil, err
	}
	r.AsOf = o.AsOf
	if r.AsOf.IsZero() {
		r.AsOf = r.Snapshot.Started
	}
	if err := setVariables(ctx, conn, r, o.Grace); err != nil {
		return nil, err
	}
	if err := src.Bind(ctx, conn, r.Snapshot.ID, r.Previous); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, pricesSQL); err != nil {
		return nil, err
	}
	if err := runRules(ctx, conn, o.Rules, o.log()); err != nil {
		return nil, err
	}
	if err := judgeUntyped(ctx, conn, r); err != nil {
		return nil, err
	}
	if err := applyWaivers(ctx, conn, r, o.Waivers); err != nil {
		return nil, err
	}
	if err := nameCustomers(ctx, conn, r.Period.String(), o.log()); err != nil {
		return nil, err
	}
	now := o.Now().UTC()
	if err := store(ctx, conn, r, now); err != nil {
		return nil, err
	}
	if err := load(ctx, conn, r, readmodel.Relations{Findings: runrec.StagedFindings, Rechecks: "cur.stored_rechecks"}); err != nil {
		return nil, err
	}
	r.Material = r.Judge(o.Materiality)
	rec := runrec.Reconciliation{Snapshot: r.Snapshot.ID, Period: r.Period.String(), AsOf: r.AsOf,
		At: now, Open: r.OpenCount(), Material: len(r.Material) > 0}
	if err := src.Stage(ctx, conn, rec); err != nil {
		return nil, err
	}
	return r, nil
}

// judgeUntyped holds back the findings that depend on values that arrived
// untyped, and notes what each rule could not judge; a rule without a
// "not judged" section is named in Unguarded when such values exist.
func judgeUntyped(ctx context.Context, conn *sql.Conn, r *findings.Report) error {
	found, err := findUntyped(ctx, conn)
	if err != nil {
		return err
	}
	var rules []findings.Rule
	if found {
		rules = r.Rules
		for _, rule := range r.Rules {
			if !rule.Guarded {
				r.Unguarded = append(r.Unguarded, rule.ID)
			}
		}
	}
	if r.HeldBack, err = holdBack(ctx, conn, rules); err != nil {
		return err
	}
	if r.Unjudged, err = unjudged(ctx, conn, r.Rules); err != nil {
		return err
	}
	r.NotJudged, err = notJudgedRecords(ctx, conn)
	return err
}

// resolve finds the snapshot to reconcile and the previous complete one.
func resolve(ctx context.Context, conn *sql.Conn, id string, r *findings.Report) error {
	if id == Previous {
		if err := resolve(ctx, conn, Latest, r); err != nil {
			return err
		}
		if r.Previous == "" {
			return unknownSnapshot(ctx, conn, Previous)
		}
		id, r.Previous = r.Previous, ""
	}
	latest := id == "" || id == Latest
	var found readmodel.Snapshot
	var err error
	if latest {
		found, err = readmodel.Latest(ctx, conn)
	} else {
		found, err = readmodel.ByID(ctx, conn, id)
	}
	s := &r.Snapshot
	*s = findings.SnapshotInfo(found)
	switch {
	case errors.Is(err, sql.ErrNoRows) && latest:
		return ErrNoSnapshot
	case errors.Is(err, sql.ErrNoRows):
		return unknownSnapshot(ctx, conn, id)
	case err != nil:
		return err
	case s.Status != snapshot.StatusComplete && s.Status != snapshot.StatusIncomplete:
		return fmt.Errorf("snapshot %s is %s: only complete and incomplete snapshots hold data to reconcile", s.ID, s.Status)
	}
	r.Previous, err = readmodel.PreviousComplete(ctx, conn, found)
	return err
}

// setVariables sets the session variables rules read.
func setVariables(ctx context.Context, conn *sql.Conn, r *findings.Report, grace time.Duration) error {
	var start, end any
	if r.Period != nil {
		start, end = r.Period.Start, r.Period.End()
	}
	var prev any
	if r.Previous != "" {
		prev = r.Previous
	}
	for _, v := range []struct {
		name, expr string
		arg        any
	}{
		{"snapshot_id", "?::VARCHAR", r.Snapshot.ID},
		{"previous_snapshot_id", "?::VARCHAR", prev},
		{"as_of", "?::TIMESTAMPTZ", r.AsOf.UTC()},
		{"grace", "to_microseconds(?::BIGINT)", grace.Microseconds()},
		{"period_start", "?::TIMESTAMPTZ", start},
		{"period_end", "?::TIMESTAMPTZ", end},
	} {
		if _, err := conn.ExecContext(ctx, "SET VARIABLE "+v.name+" = "+v.expr, v.arg); err != nil {
			return fmt.Errorf("setting %s: %w", v.name, err)
		}
	}
	return nil
}

func (o Options) log() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}

// runRules fills the temporary table run_findings, rule by rule, and
// checks that no rule found one record twice.
func runRules(ctx context.Context, conn *sql.Conn, rules []findings.Rule, log *slog.Logger) error {
	_, err := conn.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE run_findings (ord INTEGER, rule VARCHAR, severity VARCHAR,
		entity VARCHAR, entity_id VARCHAR, amount DECIMAL(18,2), currency VARCHAR, detail VARCHAR)`)
	if err != nil {
		return err
	}
	for i, rule := range rules {
		if err := runRule(ctx, conn, i, rule, log); err != nil {
			return fmt.Errorf("rule %s (%s): %w", rule.ID, rule.Source, err)
		}
	}
	var rule, id string
	var n int
	err = conn.QueryRowContext(ctx, `SELECT rule, coalesce(entity_id, 'NULL'), count(*) FROM run_findings
		GROUP BY ALL HAVING count(*) > 1 OR entity_id IS NULL LIMIT 1`).Scan(&rule, &id, &n)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("rule %s found entity_id %s %d times: a rule must find each record once, with an ID", rule, id, n)
}

// runRule inserts the findings of rule, the i-th, into run_findings. A
// rule DuckDB cannot run within its memory limit is run again on one
// thread, the threads setting put back after: each thread builds hash
// tables of its own, and the joins of the large tables (rule 10 at 2M
// records) ran out of 256MB on two threads most times and never on one.
// A statement that failed inserted nothing.
func runRule(ctx context.Context, conn *sql.Conn, i int, rule findings.Rule, log *slog.Logger) error {
	q := `INSERT INTO run_findings SELECT ?, ?, ?, CAST(entity AS VARCHAR), CAST(entity_id AS VARCHAR),
		CAST(round(amount, 2) AS DECIMAL(18,2)), CAST(currency AS VARCHAR), CAST(detail AS VARCHAR) FROM (` + rule.SQL + "\n) AS found"
	_, err := conn.ExecContext(ctx, q, i, rule.ID, rule.Severity)
	if !state.OutOfMemory(err) {
		return err
	}
	var threads int
	if err := conn.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&threads); err != nil {
		return err
	}
	if threads == 1 {
		return fmt.Errorf("%w (raise config key duckdb.memory_limit)", err)
	}
	log.Warn("DuckDB ran out of memory in a rule; running it again on one thread", "rule", rule.ID, "threads", threads)
	if _, err := conn.ExecContext(ctx, "SET threads = 1"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, q, i, rule.ID, rule.Severity)
	// threads is the database's, not the connection's: put it back even
	// when the run was cancelled meanwhile.
	restore := "SET threads = " + strconv.Itoa(threads)
	if _, serr := conn.ExecContext(context.WithoutCancel(ctx), restore); serr != nil && err == nil {
		err = serr
	}
	if state.OutOfMemory(err) {
		return fmt.Errorf("%w (on one thread too; raise config key duckdb.memory_limit)", err)
	}
	return err
}
