package overview

import (
	"cmp"
	"context"
	"database/sql"
	"html/template"
	"maps"
	"slices"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/worklist"
	"github.com/billsnap/billsnap/workspace/recon"
)

// Dashboard is the top of the overview: the tiles, then the charts, each
// of one unit (a count, or one currency's money).
type Dashboard struct {
	// The tiles. AtRisk is the gross per currency of the open findings
	// (Totals' Gross); Open is the one number of open findings (the
	// header's); Overdue, Unassigned and New are of those open findings.
	AtRisk                         []CurrencyLine
	Open, Overdue, Unassigned, New int

	AtRiskCharts []CurrencyChart // money at risk over the trend, one per currency
	Aging        template.HTML   // the open findings not waived, waived since left out, by age
	AgingLeft    int             // the open findings waived since this reconciliation, not in Aging
	ByRule       template.HTML   // the open findings per rule; "" when there are none
	Flux         []CurrencyChart // the period's flux lines, one chart per currency
	FluxNote     string          // why there is no flux chart
}

// CurrencyChart is a chart of one currency's money.
type CurrencyChart struct {
	Currency string
	SVG      template.HTML
}

// rows reads the findings of rc grouped for the overview
// (readmodel.OverviewRows), in one query: the keys of the findings overdue
// and assigned as the ledger's assignments stand at rc's as-of moment
// (worklist), and of those a standing waiver names; and the work read.
func (rd Reader) rows(ctx context.Context, db *sql.DB, rc recon.Recon) ([]readmodel.OverviewRow, worklist.Reading, error) {
	entries, err := rd.Ledger.Read()
	if err != nil {
		return nil, worklist.Reading{}, err
	}
	started, err := readmodel.SnapshotStarts(ctx, db)
	wk := worklist.Read(entries, started, rc.AsOf)
	if err != nil {
		return nil, wk, err
	}
	var overdue, assigned []string
	for k, a := range wk.Assigned {
		key := readmodel.WaiverKey(k.Rule, k.EntityID)
		assigned = append(assigned, key)
		if worklist.Overdue(a.Due, rc.AsOf) {
			overdue = append(overdue, key)
		}
	}
	st, err := recon.Standing(rd.Ledger, rd.Now())
	if err != nil {
		return nil, wk, err
	}
	rows, err := readmodel.OverviewRows(ctx, db, rc.Snapshot.ID, rc.Period, overdue, assigned, slices.Collect(maps.Keys(st)))
	return rows, wk, err
}

// fillDashboard fills p's tiles and charts; p's rules, totals and
// reconciliation are read from rows (its findings grouped), wk is their
// work, and trend its trend (oldest first).
func (rd Reader) fillDashboard(ctx context.Context, db *sql.DB, p *Page, rows []readmodel.OverviewRow, wk worklist.Reading, trend []findings.TrendPoint) error {
	d := &p.Dash
	d.Open = p.Recon.Findings
	for _, t := range p.Totals {
		d.AtRisk = append(d.AtRisk, CurrencyLine{Currency: t.Currency, Gross: t.Gross})
	}
	fillWork(d, rows, wk, p.Recon.AsOf)
	d.ByRule = ruleChart(p.Rules)
	if err := fillAtRisk(ctx, db, p, trend); err != nil {
		return err
	}
	return rd.fillFluxCharts(ctx, db, p)
}

// fillWork counts the tiles' overdue, unassigned and new findings among
// the open ones of rows, and draws their aging at asOf, those waived
// since left out, as /api/aging does.
func fillWork(d *Dashboard, rows []readmodel.OverviewRow, wk worklist.Reading, asOf time.Time) {
	buckets := map[string]int{}
	for _, r := range rows {
		if !r.Open() {
			continue
		}
		if r.Status == findings.StatusNew {
			d.New += r.N
		}
		if r.Overdue {
			d.Overdue += r.N
		}
		if !r.Assigned {
			d.Unassigned += r.N
		}
		if r.Pending {
			d.AgingLeft += r.N
			continue
		}
		buckets[worklist.Bucket(worklist.AgeDays(wk.Started[r.FirstSeen], asOf))] += r.N
	}
	bars := make([]reports.Bar, len(worklist.Buckets))
	for i, b := range worklist.Buckets {
		bars[i] = reports.Bar{Label: b, N: buckets[b]}
	}
	d.Aging = reports.AgingChart("chart-aging-svg", bars)
}

// ruleChart draws the open findings of each rule that has any, most
// first; "" when no rule has one.
func ruleChart(rules []Rule) template.HTML {
	var bars []reports.Bar
	for _, r := range rules {
		n := 0
		for _, l := range r.Lines {
			n += l.Open
		}
		if n > 0 {
			bars = append(bars, reports.Bar{Label: r.Rule.ID, N: n})
		}
	}
	if len(bars) == 0 {
		return ""
	}
	slices.SortStableFunc(bars, func(a, b reports.Bar) int { return cmp.Compare(b.N, a.N) })
	return reports.RuleChart("chart-rules-svg", bars)
}

// fillAtRisk draws the money at risk of each currency over trend, gross,
// one chart per currency that had any. The shown reconciliation's comes
// from its rules table (RuleTotals' gross), the earlier ones' from one
// query of their findings.
func fillAtRisk(ctx context.Context, db *sql.DB, p *Page, trend []findings.TrendPoint) error {
	var earlier []string
	for _, t := range trend {
		if t.Snapshot != p.Recon.Snapshot.ID {
			earlier = append(earlier, t.Snapshot)
		}
	}
	gross, err := readmodel.GrossTrend(ctx, db, p.Recon.Period, earlier)
	if err != nil {
		return err
	}
	shown := map[string]money.Amount{}
	for _, r := range p.Rules {
		for _, l := range r.Lines {
			if l.Currency != "" && l.Gross != 0 {
				shown[l.Currency] += l.Gross
			}
		}
	}
	gross[p.Recon.Snapshot.ID] = shown
	currencies := map[string]bool{}
	for _, g := range gross {
		for c, a := range g {
			currencies[c] = currencies[c] || a != 0
		}
	}
	for _, c := range slices.Sorted(maps.Keys(currencies)) {
		if !currencies[c] {
			continue
		}
		points := make([]reports.GrossPoint, len(trend))
		for i, t := range trend {
			points[i] = reports.GrossPoint{Snapshot: t.Snapshot, Gross: gross[t.Snapshot][c]}
		}
		p.Dash.AtRiskCharts = append(p.Dash.AtRiskCharts, CurrencyChart{Currency: c, SVG: reports.GrossChart("chart-at-risk-"+c+"-svg", c, points)})
	}
	return nil
}

// fillFluxCharts draws the flux lines of p's period, a chart per
// currency; a reconciliation of a whole snapshot has none, and says so.
func (rd Reader) fillFluxCharts(ctx context.Context, db *sql.DB, p *Page) error {
	d := &p.Dash
	period, err := findings.ParsePeriod(p.Recon.Period)
	if err != nil || period == nil {
		d.FluxNote = "The flux review compares a month with the month before: it is drawn on a month's overview."
		return nil
	}
	// The snapshot's reconciliations, each as reconciled: the money at
	// risk of the month and of the month before is theirs.
	version := p.Recon.Period + "@" + p.Recon.At.String()
	for _, o := range p.Others {
		version += " " + o.Period + "@" + o.At.String()
	}
	lines, err := rd.Flux.Lines(ctx, db, p.Recon.Snapshot.ID, period, version, recon.RuleIDs(rd.Rules), rd.FluxOptions)
	if err != nil {
		return err
	}
	byCurrency := map[string][]flux.Line{}
	for _, l := range lines {
		byCurrency[l.Currency] = append(byCurrency[l.Currency], l)
	}
	for _, c := range slices.Sorted(maps.Keys(byCurrency)) {
		d.Flux = append(d.Flux, CurrencyChart{Currency: c, SVG: reports.FluxChart("chart-flux-"+c+"-svg", c, byCurrency[c])})
	}
	if len(d.Flux) == 0 {
		d.FluxNote = "Nothing billed, collected, credited, open or at risk in " + period.String() + " or the month before."
	}
	return nil
}
