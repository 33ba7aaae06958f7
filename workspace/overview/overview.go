package overview

import (
	"context"
	"database/sql"
	"html/template"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/workspace/recon"
)

// Page is the overview of one reconciliation: its verdict, rules table,
// totals, tiles and charts, field notes and sign-offs.
type Page struct {
	Recon         recon.Recon
	Others        []recon.Recon // the snapshot's other reconciliations
	Verdict       string
	Rules         []Rule
	Totals        []CurrencyLine
	Dash          Dashboard     // the tiles and charts at the top
	Counts        template.HTML // the open findings per snapshot of the trend, by severity
	TrendPoints   int           // reconciliations in the trend: one draws no line, and says so
	Notes         manifest.FieldNotes
	Incomplete    []manifest.TableStats
	SignOffs      []SignOff
	Latest        *SignOff // the period's newest sign-off, of any snapshot
	NotReconciled string
	Note          string // why the reconciliation shown is not the latest snapshot's
	Pending       int    // open findings waived since this reconciliation
	NoAmount      bool   // a line whose findings carry no money shows "—"
	Nameless      int    // open findings whose customer's name is not known
}

// Rule is a rule's lines in the rules table.
type Rule struct {
	Rule    findings.Rule
	Lines   []RuleLine
	Pending int // its open findings waived since this reconciliation
}

// RuleLine is a rule's findings in one currency: Open counts the open
// findings not waived; NoAmount, that they carry no money (the rules that
// name a record, not a sum: their amount is 0), so "—" shows, not 0.00.
type RuleLine struct {
	recon.RuleTotal
	Open     int
	NoAmount bool
}

// CurrencyLine is a currency's totals as the overview shows them.
type CurrencyLine struct {
	Currency   string
	Net, Gross string // "—" when the open findings carry no money
}

// SignOff is a sign-off of the period as the overview shows it.
type SignOff struct {
	ledger.Signed
	Changed bool // the findings differ from what was signed
	Current bool // it signs this very reconciliation
}

// Reader reads the overview of a reconciliation from the read model and
// the ledger.
type Reader struct {
	Ledger      *ledger.Ledger
	Now         func() time.Time
	Rules       []findings.Rule // the rules, in their order
	Trend       int             // reconciliations in the trend (at least 2)
	Flux        *Cache          // the flux lines drawn, kept per read model
	FluxOptions flux.Options    // the flux review's threshold
}

// Fill reads the totals, trend, tiles and charts, notes and sign-offs of
// p.Recon into p.
func (rd Reader) Fill(ctx context.Context, db *sql.DB, p *Page) error {
	rows, wk, err := rd.rows(ctx, db, p.Recon)
	if err != nil {
		return err
	}
	ts := readmodel.OverviewTotals(rows, recon.RuleIDs(rd.Rules))
	open := 0
	p.Verdict = "OK"
	if p.Recon.Material {
		p.Verdict = "MATERIAL"
	}
	for _, t := range ts {
		if t.Rule == findings.IncompleteRule && t.Count > 0 {
			p.Verdict = "UNTRUSTED"
		}
		if n := len(p.Rules); n == 0 || p.Rules[n-1].Rule.ID != t.Rule {
			p.Rules = append(p.Rules, Rule{Rule: recon.Rule(rd.Rules, t.Rule)})
		}
		l := RuleLine{RuleTotal: t, Open: t.Count - t.Waived}
		l.NoAmount = l.Open > 0 && t.Gross == 0
		open += l.Open
		p.NoAmount = p.NoAmount || l.NoAmount
		p.Rules[len(p.Rules)-1].Lines = append(p.Rules[len(p.Rules)-1].Lines, l)
	}
	// The header's count is the rules table's Open added up, so that the
	// two agree even for a reconciliation stored when its count took the
	// waived findings in.
	p.Recon.Findings = open
	p.Totals = totalLines(ts)
	if p.Nameless, err = readmodel.Nameless(ctx, db, p.Recon.Snapshot.ID, p.Recon.Period, findings.IncompleteRule); err != nil {
		return err
	}
	pend := readmodel.OverviewPending(rows)
	for i := range p.Rules {
		p.Rules[i].Pending = pend[p.Rules[i].Rule.ID]
		p.Pending += p.Rules[i].Pending
	}
	period, _ := findings.ParsePeriod(p.Recon.Period)
	if p.Recon.Period == "" {
		period = nil
	}
	trend, err := reconcile.Trend(ctx, db, period, p.Recon.Snapshot, max(rd.Trend, 2))
	if err != nil {
		return err
	}
	p.TrendPoints = len(trend)
	p.Counts, _ = reports.TrendCharts(trend)
	if err := rd.fillDashboard(ctx, db, p, rows, wk, trend); err != nil {
		return err
	}
	tables, err := readmodel.Manifest(ctx, db, p.Recon.Snapshot.ID)
	if err != nil {
		return err
	}
	fields, err := readmodel.Fields(ctx, db, p.Recon.Snapshot.ID)
	if err != nil {
		return err
	}
	p.Notes = manifest.Notes(fields, tables)
	for _, t := range tables {
		if !t.Complete || t.Problem != "" {
			p.Incomplete = append(p.Incomplete, t)
		}
	}
	return rd.fillSignOffs(ctx, db, p)
}

// totalLines are ts's totals per currency; a currency whose open,
// unwaived findings carry no money says "—".
func totalLines(ts []recon.RuleTotal) []CurrencyLine {
	totals, open := recon.CurrencyTotals(ts), map[string]int{}
	for _, t := range ts {
		open[t.Currency] += t.Count - t.Waived
	}
	var out []CurrencyLine
	for _, c := range findings.Currencies(totals) {
		l := CurrencyLine{Currency: c, Net: totals[c].Net.Grouped(), Gross: totals[c].Gross.Grouped()}
		if open[c] > 0 && totals[c].Gross == 0 {
			l.Net, l.Gross = findings.NoMoney, findings.NoMoney
		}
		out = append(out, l)
	}
	return out
}

// fillSignOffs lists the sign-offs of the period, marking those whose
// findings are no longer what they signed.
func (rd Reader) fillSignOffs(ctx context.Context, db *sql.DB, p *Page) error {
	entries, err := rd.Ledger.Read()
	if err != nil {
		return err
	}
	var ofPeriod []ledger.Signed
	for _, so := range ledger.Fold(entries).SignOffs {
		if so.Period == p.Recon.Period {
			ofPeriod = append(ofPeriod, so)
		}
	}
	if len(ofPeriod) == 0 {
		return nil
	}
	d, _, err := recon.Digest(ctx, db, p.Recon)
	if err != nil {
		return err
	}
	for _, so := range ofPeriod {
		v := SignOff{Signed: so, Current: so.Snapshot == p.Recon.Snapshot.ID, Changed: so.Digest != d}
		if v.Current {
			p.SignOffs = append(p.SignOffs, v)
		}
		p.Latest = &v
	}
	return nil
}
