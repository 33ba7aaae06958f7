package fluxreview

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/workspace/recon"
)

// View is a period's flux review over one snapshot's records
// (reconcile.Flux).
type View struct{ reconcile.FluxReview }

// Unexplained are the lines of v over the threshold that no current
// explanation covers.
func (v View) Unexplained() []flux.Line { return flux.Unexplained(v.Lines) }

// NotOverError is an explanation of a line that is not over the
// threshold, or that the review has not: it needs none (422).
type NotOverError struct{ Msg string }

func (e *NotOverError) Error() string { return e.Msg }

// Reviewer reads the flux reviews of a store's periods and records their
// explanations in its ledger.
type Reviewer struct {
	Ledger  *ledger.Ledger
	Log     *slog.Logger
	Rules   []string     // the rules' IDs, in their order
	Options flux.Options // the threshold
}

// Of is the flux review of period (YYYY-MM) over snapshot (latest,
// previous or an ID), explained by the ledger's explanations.
func (rv Reviewer) Of(ctx context.Context, db *sql.DB, snapshot, period string) (View, error) {
	p, err := findings.ParsePeriod(period)
	if err != nil || period == "" {
		return View{}, &ledger.InvalidError{Msg: fmt.Sprintf("flux: period %q: want a month as YYYY-MM", period)}
	}
	info, _, err := reconcile.Resolve(ctx, db, snapshot)
	if err != nil {
		return View{}, err
	}
	entries, err := rv.Ledger.Read()
	if err != nil {
		return View{}, err
	}
	v, err := reconcile.Flux(ctx, db, info.ID, p, rv.Rules, rv.Options, ledger.Fold(entries).Explanations)
	return View{v}, err
}

// Check refuses a sign-off of rc while a line of its period's flux
// review is over the threshold with no current explanation
// (*recon.ConflictError, naming the lines). A reconciliation of a whole
// snapshot has no period, and no review.
func (rv Reviewer) Check(ctx context.Context, db *sql.DB, rc recon.Recon) error {
	if rc.Period == "" {
		return nil
	}
	v, err := rv.Of(ctx, db, rc.Snapshot.ID, rc.Period)
	if err != nil {
		return err
	}
	un := v.Unexplained()
	if len(un) == 0 {
		return nil
	}
	names := make([]string, len(un))
	for i, l := range un {
		names[i] = fmt.Sprintf("%s %s (%s → %s)", l.Measure, l.Currency, l.Previous, l.Current)
		if l.Explanation != nil {
			names[i] += ", its explanation stale"
		}
	}
	return &recon.ConflictError{Msg: fmt.Sprintf("the flux review of %s has %s over the threshold without a current explanation: %s; explain them (/flux?period=%s) before signing off",
		rc.Period, plural.Of(len(un), "line"), strings.Join(names, "; "), rc.Period)}
}

// Explain records text, by a, as the explanation of the line (measure,
// currency) of period's flux review over snapshot, with its figures as
// they are; who may explain is the caller's to check. A line that is
// not over the threshold, or that the review has not, is a *NotOverError.
func (rv Reviewer) Explain(ctx context.Context, db *sql.DB, a ledger.Actor, snapshot, period, measure, currency, text string) (ledger.Explained, error) {
	if !flux.Known(measure) {
		return ledger.Explained{}, &ledger.InvalidError{Msg: fmt.Sprintf("explanation: measure %q: want one of %s", measure, strings.Join(flux.Measures(), ", "))}
	}
	v, err := rv.Of(ctx, db, snapshot, period)
	if err != nil {
		return ledger.Explained{}, err
	}
	l, ok := flux.Find(v.Lines, measure, currency)
	if !ok || !l.Over {
		return ledger.Explained{}, &NotOverError{Msg: fmt.Sprintf("explanation: %s %q of %s is not over the threshold (%s and %s%%) in snapshot %s: it needs no explanation",
			measure, currency, v.Period, v.Threshold.Amount, v.Threshold.Percent, v.Snapshot)}
	}
	x, err := rv.Ledger.Explain(a, ledger.Explanation{Period: v.Period, Measure: measure, Currency: currency, Previous: l.Previous.String(),
		Current: l.Current.String(), Snapshot: v.Snapshot, Text: text})
	if err == nil {
		rv.Log.Info("workspace: flux explained", "id", x.ID, "period", x.Period, "measure", measure, "currency", currency, "by", a.By, "from", a.From)
	}
	return x, err
}

// APILine is a line of the review as the API shows it; money as
// decimal strings, change_pct null when the month before is 0.
type APILine struct {
	Measure     string          `json:"measure"`
	Currency    string          `json:"currency"`
	Previous    string          `json:"previous"`
	Current     string          `json:"current"`
	Change      string          `json:"change"`
	ChangePct   *string         `json:"change_pct"`
	Over        bool            `json:"over_threshold"`
	Explanation *APIExplanation `json:"explanation"`
}

// APIExplanation is an explanation as the API shows it; stale when it was
// given for other figures than its line's.
type APIExplanation struct {
	ledger.Explanation
	By    string    `json:"by"`
	Auth  string    `json:"auth,omitempty"`
	At    time.Time `json:"at"`
	Stale bool      `json:"stale"`
}

// API is a period's review as the API shows it.
type API struct {
	Period      string       `json:"period"`
	Previous    string       `json:"previous_period"`
	Snapshot    string       `json:"snapshot_id"`
	Threshold   flux.Options `json:"threshold"`
	Lines       []APILine    `json:"lines"`
	Unexplained int          `json:"unexplained"`
	Notes       []string     `json:"notes"`
}

// Out is v as the API shows it.
func Out(v View) API {
	out := API{Period: v.Period, Previous: v.Previous, Snapshot: v.Snapshot, Threshold: v.Threshold, Lines: []APILine{},
		Unexplained: len(v.Unexplained()), Notes: v.Notes}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, l := range v.Lines {
		a := APILine{Measure: l.Measure, Currency: l.Currency, Previous: l.Previous.String(), Current: l.Current.String(),
			Change: l.Change.String(), Over: l.Over}
		if l.ChangePct != "" {
			a.ChangePct = &l.ChangePct
		}
		if x := l.Explanation; x != nil {
			a.Explanation = &APIExplanation{Explanation: x.Explanation, By: x.By, Auth: x.Auth, At: x.At, Stale: l.Stale}
		}
		out.Lines = append(out.Lines, a)
	}
	return out
}

// ForReports is the flux review of rc's period as the reports of its
// closed record show it; nil for a reconciliation of a whole snapshot.
func (rv Reviewer) ForReports(ctx context.Context, db *sql.DB, rc recon.Recon) (*reports.Flux, error) {
	if rc.Period == "" {
		return nil, nil
	}
	v, err := rv.Of(ctx, db, rc.Snapshot.ID, rc.Period)
	if err != nil {
		return nil, err
	}
	return &reports.Flux{Period: v.Period, Previous: v.Previous, Snapshot: v.Snapshot, Lines: v.Lines}, nil
}
