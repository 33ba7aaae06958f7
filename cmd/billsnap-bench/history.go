package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// historyFlags are the flags of billsnap-bench --history.
type historyFlags struct {
	snapshots, findings, customers, rounds int
	span                                   time.Duration
	out                                    string
}

func parseHistory(args []string) (historyFlags, error) {
	var h historyFlags
	fs := flag.NewFlagSet("billsnap-bench --history", flag.ContinueOnError)
	fs.Bool("history", true, "measure a store with a long history against a fresh one")
	fs.IntVar(&h.snapshots, "snapshots", 365, "snapshots the history store holds (one a day)")
	fs.IntVar(&h.findings, "findings", 1_000_000, "findings the history store holds, spread over its snapshots")
	fs.IntVar(&h.customers, "customers", 50, "customers of the small sandbox exported")
	fs.IntVar(&h.rounds, "rounds", 7, "times each operation is timed on each store (the median counts)")
	fs.DurationVar(&h.span, "span", 500*time.Millisecond, "the least a timing lasts: an operation is run that often in one (its mean is the round's figure), as counted on the fresh store, up to 20 times")
	fs.StringVar(&h.out, "out", "", "where the stores go (default: a temporary directory, removed)")
	if err := fs.Parse(args); err != nil {
		return h, err
	}
	if h.rounds < 1 || h.span < 0 {
		return h, fmt.Errorf("--rounds %d --span %s: want a round or more, a span of 0 or more", h.rounds, h.span)
	}
	return h, nil
}

// history measures what billsnap's everyday operations cost on a store
// with a long history against a fresh store: status's reads, a reconcile
// of the latest snapshot, and the export of a small sandbox, each timed in
// this process (start-up not counted). The history store is the fresh
// one's first export and reconcile, then snapshots going back a day each
// (their Parquet linked from the first's, their manifest copied), the
// findings spread over them (the first's, recurring every day), and two
// runs a day in the journal. Its last line is history_ratio=R, the worst
// of the operations' ratios (median wall time on the history store over
// median on the fresh one); the line before it history_cpu_ratio=C, the
// same of the process's CPU time.
func history(ctx context.Context, args []string) error {
	h, err := parseHistory(args)
	if err != nil {
		return err
	}
	dir, cleanup, err := benchDir(h.out)
	if err != nil {
		return err
	}
	defer cleanup()
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{APIKey: benchKey, Data: sandbox.Options{Seed: 1, Customers: h.customers, Planted: 2}}))
	if err != nil {
		return err
	}
	defer srv.Close()
	fresh, old := historyConfig(srv.URL, filepath.Join(dir, "fresh")), historyConfig(srv.URL, filepath.Join(dir, "history"))
	for _, cfg := range []config.Config{fresh, old} {
		if err := exportAndReconcile(ctx, cfg); err != nil {
			return err
		}
	}
	start := time.Now()
	if err := seedHistory(ctx, old, h.snapshots, h.findings); err != nil {
		return fmt.Errorf("seeding the history: %w", err)
	}
	fmt.Fprintf(os.Stderr, "history store: %d snapshots, %d findings, seeded in %.1f s\n", h.snapshots, h.findings, time.Since(start).Seconds())
	return reportHistory(ctx, fresh, old, h.rounds, h.span)
}

// benchDir is out, or a temporary directory removed by cleanup.
func benchDir(out string) (string, func(), error) {
	if out != "" {
		return out, func() {}, os.MkdirAll(out, 0o755)
	}
	d, err := os.MkdirTemp("", "billsnap-bench-")
	return d, func() { os.RemoveAll(d) }, err
}

func historyConfig(url, out string) config.Config {
	c := benchConfig(url, out, 8, config.Default().Prefetch)
	c.Retention.Keep = 0
	return c
}

// exportAndReconcile exports the sandbox into cfg's store and reconciles
// it, as the commands do.
func exportAndReconcile(ctx context.Context, cfg config.Config) error {
	if _, err := export(ctx, cfg); err != nil {
		return err
	}
	_, err := reconcileLatest(ctx, cfg)
	return err
}

// reconcileLatest reconciles the latest snapshot as billsnap reconcile
// does (job.Reconcile), and returns its findings.
func reconcileLatest(ctx context.Context, cfg config.Config) (int, error) {
	store, err := snapshot.OpenShared(ctx, cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	rep, err := reconcileIn(ctx, cfg, store)
	if err != nil {
		return 0, err
	}
	return len(rep.Findings), nil
}

// reconcileIn reconciles the latest snapshot of store, cfg's, as billsnap
// reconcile does (job.Reconcile).
func reconcileIn(ctx context.Context, cfg config.Config, store *snapshot.Store) (*findings.Report, error) {
	opts, err := job.ReconcileOptions(cfg, "", "")
	if err != nil {
		return nil, err
	}
	return job.Reconcile(ctx, store, opts, slog.New(slog.DiscardHandler), nil)
}

// status does what billsnap status reads: the journal's newest ten runs,
// the latest snapshot's field notes in the read model, and the
// deliveries.
func status(ctx context.Context, cfg config.Config) error {
	if _, err := journal.Newest(layout.Dir(cfg.Out).Runs(), 10, time.Now()); err != nil {
		return err
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, _, err := readmodel.LatestNotes(ctx, db); err != nil {
		return err
	}
	_, err = journal.DeliveriesIn(layout.Dir(cfg.Out).Notifications()).List()
	return err
}

// historyOps are the operations timed, by name: export and reconcile as
// the commands run them, recorded jobs (recorded), so that what a run
// does after its work, its journal entry and the metrics it refreshes,
// is timed too.
var historyOps = []historyOp{
	{"status", status},
	{"reconcile", recorded(job.Spec{Name: "reconcile"}, func(ctx context.Context, cfg config.Config, store *snapshot.Store) (job.Outcome, error) {
		rep, err := reconcileIn(ctx, cfg, store)
		if err != nil {
			return job.Outcome{}, err
		}
		return job.ReconcileOutcome(rep), nil
	})},
	{"export", recorded(job.Spec{Name: "export", ExportLock: true}, func(ctx context.Context, cfg config.Config, store *snapshot.Store) (job.Outcome, error) {
		sum, req, err := job.Export(ctx, cfg, benchService(benchLog()), store)
		return job.ExportOutcome(sum, req), err
	})},
}

// recorded is the operation that runs fn in cfg's store as the recorded
// job j, as billsnap's commands do (job.InStore): the run in the journal,
// the metrics refreshed after it.
func recorded(j job.Spec, fn func(context.Context, config.Config, *snapshot.Store) (job.Outcome, error)) func(context.Context, config.Config) error {
	return func(ctx context.Context, cfg config.Config) error {
		_, err := job.InStore(ctx, cfg, j, benchLog(), func(s string) string { return s }, nil, func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
			return fn(ctx, cfg, store)
		})
		return err
	}
}

// historyOp is an operation timed, by name.
type historyOp struct {
	name string
	fn   func(context.Context, config.Config) error
}

// historyStore is a store timed, by name.
type historyStore struct {
	name string
	cfg  config.Config
}

// sample is one timing of an operation: wall and process CPU time.
type sample struct{ wall, cpu time.Duration }

// reportHistory times each operation rounds times on each store, in
// turn (the fresh store first in odd rounds, the history store in even
// ones, so that neither always runs on the other's warm caches), each
// timing the mean of as many runs as last span on the fresh store
// (runsFor); and prints the medians and their ratios.
func reportHistory(ctx context.Context, fresh, old config.Config, rounds int, span time.Duration) error {
	samples := map[string][]sample{}
	stores := []historyStore{{"fresh", fresh}, {"history", old}}
	runs := map[string]int{}
	for _, op := range historyOps {
		n, err := runsFor(ctx, op.fn, fresh, span)
		if err != nil {
			return fmt.Errorf("%s on the fresh store: %w", op.name, err)
		}
		runs[op.name] = n
	}
	for i := range rounds {
		for _, op := range historyOps {
			for _, s := range inTurn(stores, i) {
				t, err := timeOp(ctx, op.fn, s.cfg, runs[op.name])
				if err != nil {
					return fmt.Errorf("%s on the %s store: %w", op.name, s.name, err)
				}
				samples[op.name+"/"+s.name] = append(samples[op.name+"/"+s.name], t)
			}
		}
	}
	fmt.Printf("%12s %5s %10s %10s %7s %10s %10s %7s\n", "operation", "runs", "fresh s", "history s", "ratio", "fresh cpu", "hist cpu", "cpu")
	worst, worstCPU := 0.0, 0.0
	for _, op := range historyOps {
		f, h := samples[op.name+"/fresh"], samples[op.name+"/history"]
		fw, hw := medianOf(f, wallOf), medianOf(h, wallOf)
		fc, hc := medianOf(f, cpuOf), medianOf(h, cpuOf)
		r, rc := hw.Seconds()/fw.Seconds(), hc.Seconds()/fc.Seconds()
		worst, worstCPU = max(worst, r), max(worstCPU, rc)
		fmt.Printf("%12s %5d %10.3f %10.3f %7.2f %10.3f %10.3f %7.2f\n", op.name, runs[op.name], fw.Seconds(), hw.Seconds(), r, fc.Seconds(), hc.Seconds(), rc)
	}
	fmt.Printf("(medians of %d rounds, a timing the mean of its runs, in this process)\nhistory_cpu_ratio=%.2f\nhistory_ratio=%.2f\n", rounds, worstCPU, worst)
	return nil
}

// maxRuns is the most runs of an operation one timing takes.
const maxRuns = 20

// runsFor runs fn once on cfg (not timed for the report) and returns how
// many runs of it last span: at least 1, at most maxRuns.
func runsFor(ctx context.Context, fn func(context.Context, config.Config) error, cfg config.Config, span time.Duration) (int, error) {
	t, err := timeOp(ctx, fn, cfg, 1)
	if err != nil {
		return 0, err
	}
	return runsIn(span, t.wall), nil
}

// runsIn is how many runs of took each last span, at least 1, at most
// maxRuns.
func runsIn(span, took time.Duration) int {
	if took <= 0 {
		return maxRuns
	}
	return int(min(maxRuns, max(1, (span+took-1)/took)))
}

// inTurn is stores in round i's order: as given in even rounds (the
// first is 0), reversed in odd ones.
func inTurn(stores []historyStore, i int) []historyStore {
	if i%2 == 0 {
		return stores
	}
	return []historyStore{stores[1], stores[0]}
}

// timeOp runs fn on cfg repeat times and returns the mean of a run's
// wall time and of the process's CPU time (user and system, every
// goroutine's: the sandbox's serving of an export included, for either
// store alike).
func timeOp(ctx context.Context, fn func(context.Context, config.Config) error, cfg config.Config, repeat int) (sample, error) {
	wall, cpu := time.Now(), processCPU()
	for range repeat {
		if err := fn(ctx, cfg); err != nil {
			return sample{}, err
		}
	}
	n := time.Duration(repeat)
	return sample{wall: time.Since(wall) / n, cpu: (processCPU() - cpu) / n}, nil
}

func wallOf(s sample) time.Duration { return s.wall }
func cpuOf(s sample) time.Duration  { return s.cpu }

// medianOf is the median of the samples' values of.
func medianOf(samples []sample, of func(sample) time.Duration) time.Duration {
	s := make([]time.Duration, len(samples))
	for i, x := range samples {
		s[i] = of(x)
	}
	return median(s)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// seedHistory gives the store of cfg, which holds one reconciled
// snapshot, n earlier snapshots a day apart and findings spread over
// them (each day's with its own amount and detail), in one change of its
// state, and two runs a day in its journal.
func seedHistory(ctx context.Context, cfg config.Config, n, findings int) error {
	store, err := snapshot.Open(ctx, cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		return err
	}
	defer store.Close()
	var fakes []Copy
	err = store.UpdateAndPublish(ctx, func(sec *snapshot.Section) error {
		db := sec.DB()
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		latest, err := readmodel.Latest(ctx, conn)
		if err != nil {
			return err
		}
		real := latest.ID
		if fakes, err = fakeSnapshots(ctx, conn, real, latest.Started, n); err != nil {
			return err
		}
		if err := linkPartitions(store.ParquetDir(), real, fakes); err != nil {
			return err
		}
		return seedFindings(ctx, store, sec, conn, real, fakes, max(1, findings/n))
	})
	if err != nil {
		return err
	}
	return seedJournal(cfg.Out, fakes)
}

// fakeSnapshots records n complete snapshots before real, a day apart,
// with real's manifest and fields (CopySnapshot), and returns
// them; the temporary table fake lists them too, for seedDay.
func fakeSnapshots(ctx context.Context, db *sql.Conn, real string, started time.Time, n int) ([]Copy, error) {
	if _, err := db.ExecContext(ctx, "CREATE TEMP TABLE fake (id VARCHAR, started TIMESTAMPTZ)"); err != nil {
		return nil, err
	}
	var fakes []Copy
	for i := range n {
		at := started.AddDate(0, 0, -(i + 1))
		id := at.UTC().Format("2006-01-02T150405Z")
		if _, err := db.ExecContext(ctx, "INSERT INTO fake VALUES (?, ?)", id, at); err != nil {
			return nil, err
		}
		fakes = append(fakes, Copy{ID: id, Started: at})
	}
	return fakes, CopySnapshot(ctx, db, real, fakes)
}

// seedFindings gives every fake snapshot per findings, made from real's
// (as readers see them: each a finding that recurs every day), kept as a
// reconciliation keeps them, and its reconciliation and totals.
func seedFindings(ctx context.Context, store *snapshot.Store, sec *snapshot.Section, conn *sql.Conn, real string, fakes []Copy, per int) error {
	recs, err := readmodel.ReconciliationsOf(ctx, conn, real)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return fmt.Errorf("snapshot %s: %w", real, sql.ErrNoRows)
	}
	period := recs[0].Period
	glob := filepath.Join(store.Dir(), "records", "findings", "*.parquet")
	if _, err := conn.ExecContext(ctx, `CREATE TEMP TABLE base AS SELECT *, row_number() OVER (ORDER BY rule, entity_id) - 1 AS n,
		count(*) OVER () AS c FROM read_parquet(?) WHERE snapshot_id = ?`, glob, real); err != nil {
		return err
	}
	for _, f := range fakes {
		if err := seedDay(ctx, sec, conn, f.ID, period, per); err != nil {
			return err
		}
	}
	return CopyReconciliations(ctx, conn, real, fakes, per)
}

// seedDay keeps snapshot id's findings. Each day's amount and detail of a
// finding differ, as a real finding's do (a balance that moves, the dates
// it names).
func seedDay(ctx context.Context, sec *snapshot.Section, conn *sql.Conn, id, period string, per int) error {
	if err := runrec.StageTables(ctx, conn); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO `+runrec.StagedFindings+` SELECT f.id, b.period, b.rule, b.severity, b.entity,
		b.entity_id || '-' || k.i, b.amount + (hash(f.id, k.i) % 100000) / 100, b.currency, b.detail || ' ' || md5(f.id || k.i),
		b.status, b.first_seen, b.waived, b.waiver_reason, b.waiver_owner, b.waiver_expires,
		f.started, f.started, b.waiver_id, b.waiver_by,
		printf('cus-%06d', k.i % 50), 'Customer ' || (k.i % 50), printf('INV-%07d', k.i)
		FROM fake f, range(?) k(i), base b WHERE f.id = ? AND b.n = k.i % b.c`, per, id); err != nil {
		return err
	}
	if err := AddTotals(ctx, conn, runrec.StagedFindings); err != nil {
		return err
	}
	return sec.KeepFindings(ctx, conn, id, period)
}

// linkPartitions gives each fake snapshot real's Parquet, hard-linked, in
// the tree under dir.
func linkPartitions(dir, real string, fakes []Copy) error {
	parts, err := filepath.Glob(filepath.Join(dir, "*", "snapshot_id="+real, "*.parquet"))
	if err != nil {
		return err
	}
	for _, f := range fakes {
		for _, p := range parts {
			to := filepath.Join(filepath.Dir(filepath.Dir(p)), "snapshot_id="+f.ID, filepath.Base(p))
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			if err := os.Link(p, to); err != nil {
				return err
			}
		}
	}
	return nil
}

// seedJournal records an export and a reconcile of each fake snapshot.
func seedJournal(out string, fakes []Copy) error {
	for _, f := range fakes {
		id := f.ID
		at, err := time.Parse("2006-01-02T150405Z", id)
		if err != nil {
			return err
		}
		for i, name := range []string{"export", "reconcile"} {
			start := at.Add(time.Duration(i) * time.Minute)
			e, err := journal.New(layout.Dir(out).Runs(), func() time.Time { return start }).Start(journal.Run{Job: name, PID: os.Getpid()})
			if err != nil {
				return err
			}
			if err := e.Finish(journal.End{Status: journal.OK, Snapshot: id}); err != nil {
				return err
			}
		}
	}
	return nil
}
