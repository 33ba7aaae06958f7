package job

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// ReconcileOptions prepares what every reconciliation of cfg needs: the
// shipped rules with those of rulesDir (default: reconcile.rules_dir),
// the waivers of the file waivers (default: reconcile.waivers) and those
// made in the workspace (the store's ledger), the grace and the
// materiality thresholds, checked against the rules. Any problem with
// what the user gave is a usage error.
func ReconcileOptions(cfg config.Config, rulesDir, waivers string) (reconcile.Options, error) {
	o := reconcile.Options{Grace: cfg.Reconcile.Grace, Materiality: cfg.Reconcile.Materiality, Now: time.Now}
	var err error
	if o.Rules, err = reconcile.Rules(cmp.Or(rulesDir, cfg.Reconcile.RulesDir)); err != nil {
		return o, usage.Wrap(err)
	}
	if w := cmp.Or(waivers, cfg.Reconcile.Waivers); w != "" {
		if o.Waivers, err = findings.LoadWaivers(w); err != nil {
			return o, usage.Wrap(err)
		}
		for i, wv := range o.Waivers {
			if err := cfg.Worklist.CheckCode(fmt.Sprintf("waivers file %s: waiver %d", w, i+1), wv.ReasonCode); wv.ReasonCode != "" && err != nil {
				return o, usage.Wrap(err)
			}
		}
	}
	made, err := workspaceWaivers(cfg.Out)
	if err != nil {
		return o, err
	}
	o.Waivers = append(o.Waivers, made...)
	if err := o.Check(); err != nil {
		return o, usage.Wrap(err)
	}
	return o, nil
}

// signOffsUpTo are the sign-offs made in the workspace of the store at out
// for rep's period, of its snapshot or an earlier one, and the period's
// close when it is closed, with its post-close adjustments.
func signOffsUpTo(out string, rep *findings.Report) ([]ledger.Signed, *reports.Closed, error) {
	entries, err := ledger.New(layout.Dir(out).Ledger(), time.Now).Read()
	if err != nil {
		return nil, nil, err
	}
	st := ledger.Fold(entries)
	var sos []ledger.Signed
	for _, so := range st.SignOffs {
		if so.Period == rep.Period.String() && so.Snapshot <= rep.Snapshot.ID {
			sos = append(sos, so)
		}
	}
	c, ok := st.ClosedPeriod(rep.Period.String())
	if !ok || rep.Period == nil {
		return sos, nil, nil
	}
	return sos, &reports.Closed{Closed: c, Adjustments: ledger.Adjustments(entries, c)}, nil
}

// periodClosed tells whether period (nil: none) stands closed in the
// ledger of the store at out.
func periodClosed(out string, period *findings.Period) (bool, error) {
	if period == nil {
		return false, nil
	}
	entries, err := ledger.New(layout.Dir(out).Ledger(), time.Now).Read()
	if err != nil {
		return false, err
	}
	_, closed := ledger.Fold(entries).ClosedPeriod(period.String())
	return closed, nil
}

// workspaceWaivers are the waivers made in the workspace of the store at
// out and not lifted.
func workspaceWaivers(out string) ([]findings.Waiver, error) {
	entries, err := ledger.New(layout.Dir(out).Ledger(), time.Now).Read()
	if err != nil {
		return nil, err
	}
	var ws []findings.Waiver
	for _, m := range ledger.Fold(entries).Standing() {
		expires, err := time.Parse(time.DateOnly, m.Expires)
		if err != nil {
			return nil, fmt.Errorf("ledger: waiver %s: %w", m.ID, err)
		}
		ws = append(ws, findings.Waiver{Rule: m.Rule, EntityID: m.EntityID, Reason: m.Reason, ReasonCode: m.ReasonCode, Owner: m.Owner,
			Expires: findings.Date{Time: expires}, ID: m.ID, By: m.By})
	}
	return ws, nil
}

// coded gives each waived finding of rep the reason code of the waiver of
// ws it is (the same rule, record, reason, owner and expiry): a stored
// finding keeps its waiver's text, not its code.
func coded(rep *findings.Report, ws []findings.Waiver) {
	type key struct{ rule, entity, reason, owner, expires string }
	codes := map[key]string{}
	for _, w := range ws {
		if w.ReasonCode != "" {
			codes[key{w.Rule, w.EntityID, w.Reason, w.Owner, w.Expires.Format(time.DateOnly)}] = w.ReasonCode
		}
	}
	for i, f := range rep.Findings {
		if w := f.Waiver; w != nil && w.ReasonCode == "" {
			if c := codes[key{w.Rule, w.EntityID, w.Reason, w.Owner, w.Expires.Format(time.DateOnly)}]; c != "" {
				cw := *w
				cw.ReasonCode = c
				rep.Findings[i].Waiver = &cw
			}
		}
	}
}

// Reconcile reconciles a reading of the store's state, outside any
// section of it, and has the store keep what it found, in one section,
// which publishes the read model again with the findings. A reconciliation
// that the state changed under (snapshot.ErrStale) is run again, twice at
// most. then, when not nil, is called with the state as the store kept
// it (to read what the reports show beside the findings).
func Reconcile(ctx context.Context, store *snapshot.Store, opts reconcile.Options, log *slog.Logger,
	then func(db *sql.DB, rep *findings.Report) error) (*findings.Report, error) {
	opts.Log = log
	var rep *findings.Report
	var err error
	for attempt := 1; ; attempt++ {
		rep, err = reconcileOnce(ctx, store, opts)
		if !errors.Is(err, snapshot.ErrStale) || attempt == 3 {
			break
		}
		log.Info("reconciling again: the store changed meanwhile", "error", err)
	}
	if err != nil {
		return rep, err
	}
	coded(rep, opts.Waivers)
	if then == nil {
		return rep, nil
	}
	rd, err := store.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return rep, then(rd.DB(), rep)
}

// reconcileOnce reconciles a reading of the store, and keeps what it
// found. A reconciliation of a closed period first checks the Parquet
// files it reads against their snapshots' manifests (Reading.VerifyFiles).
func reconcileOnce(ctx context.Context, store *snapshot.Store, opts reconcile.Options) (*findings.Report, error) {
	closed, err := periodClosed(store.Dir(), opts.Period)
	if err != nil {
		return nil, err
	}
	rd, err := store.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	rd.VerifyFiles = closed
	rep, err := reconcile.Run(ctx, rd, opts)
	if err != nil {
		return nil, err
	}
	return rep, store.Keep(ctx, rd)
}

// ReconcileOutcome is the outcome of a reconciliation.
func ReconcileOutcome(rep *findings.Report) Outcome {
	out := Outcome{Snapshot: rep.Snapshot.ID, Material: len(rep.Material) > 0, Report: rep}
	if out.Material {
		out.Note = fmt.Sprintf("material findings in snapshot %s: %s", rep.Snapshot.ID, strings.Join(rep.Material, "; "))
	}
	return out
}

// ReportSpec is which reports to write, and for whom.
type ReportSpec struct {
	Formats []string
	Demo    bool // the demo's: they say the demo exits 0 whatever it finds
}

// Report reconciles and writes the report files of spec under the store's
// reports directory. It returns what the reports show and the paths
// written.
func Report(ctx context.Context, cfg config.Config, store *snapshot.Store, opts reconcile.Options, spec ReportSpec, log *slog.Logger) (*reports.Input, []string, error) {
	var in *reports.Input
	_, err := Reconcile(ctx, store, opts, log, func(db *sql.DB, rep *findings.Report) error {
		var err error
		in, err = reportInput(ctx, cfg, db, rep, spec.Demo)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	paths, err := reports.Write(reports.Dir(filepath.Join(cfg.Out, cfg.Reports.Dir), in), in, spec.Formats)
	return in, paths, err
}

// reportInput gathers what the reports show besides the findings, from
// db, the state.
func reportInput(ctx context.Context, cfg config.Config, db *sql.DB, rep *findings.Report, demo bool) (*reports.Input, error) {
	tables, err := readmodel.Manifest(ctx, db, rep.Snapshot.ID)
	if err != nil {
		return nil, err
	}
	trend, err := reconcile.Trend(ctx, db, rep.Period, rep.Snapshot, cfg.Reports.Trend)
	if err != nil {
		return nil, err
	}
	fields, err := readmodel.Fields(ctx, db, rep.Snapshot.ID)
	if err != nil {
		return nil, err
	}
	signOffs, closed, err := signOffsUpTo(cfg.Out, rep)
	if err != nil {
		return nil, err
	}
	in := &reports.Input{Report: rep, Tables: tables, Fields: fields, Trend: trend, Generated: time.Now(), MaxRows: cfg.Reports.MaxRows,
		SignOffs: signOffs, Close: closed, Demo: demo}
	if in.Flux, err = reportFlux(ctx, cfg, rep); err != nil {
		return nil, err
	}
	work, err := WorkOf(ctx, cfg.Out, db, rep)
	if err != nil {
		return nil, err
	}
	in.Work = work.ForReports()
	if len(rep.Material) > 0 && !demo {
		in.ExitCode = ExitMaterial
	}
	return in, nil
}
