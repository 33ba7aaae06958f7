package reports

import (
	"embed"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/money"
)

//go:embed templates/report.html.tmpl
var templates embed.FS

var page = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"utc": func(t time.Time) string { return t.UTC().Format(timeFormat) },
	// amountIn is cur's amount in m, findings.NoMoney when its findings
	// carry none (gross, their absolute amounts, is 0), "" when it has none.
	"amountIn": func(m, gross map[string]money.Amount, cur string) string {
		if a, ok := m[cur]; ok {
			return amountText(a, gross[cur], money.Amount.Grouped)
		}
		return ""
	},
	// amount is a finding's amount, findings.NoMoney when it carries none.
	"amount": func(a money.Amount) string { return amountText(a, a.Abs(), money.Amount.Grouped) },
	// breakable lets a compound ID (a/b) break after its slashes only.
	"breakable": func(id string) template.HTML {
		parts := strings.Split(id, "/")
		for i, p := range parts {
			parts[i] = template.HTMLEscapeString(p)
		}
		return template.HTML(strings.Join(parts, "/<wbr>"))
	},
	"plural": plural.Any,
	"count": func(n int64) string {
		if n < 0 {
			return "–"
		}
		return strconv.FormatInt(n, 10)
	},
}).ParseFS(templates, "templates/report.html.tmpl"))

// htmlRule is one rule's section: its totals and the findings shown, as
// slices of the report's own findings (never a copy).
type htmlRule struct {
	Total  findings.RuleTotal
	Shown  []findings.Finding
	Listed int // findings this section would list without a limit
	Hidden int
}

type htmlData struct {
	In                      *Input
	R                       *findings.Report
	Rules                   []htmlRule
	Currencies              []string
	Net, Gross              map[string]money.Amount // per currency, of the unwaived findings
	Count, New, Recurring   int
	Waived, Resolved        int
	Duration                time.Duration
	Period, Previous        string
	CountChart, AmountChart template.HTML
	NotJudged               []string // what untyped values kept rules from judging
	Fields                  manifest.FieldNotes
}

// HTML writes the self-contained report page: summary per rule and
// currency, the trend of the last reconciliations, a table per rule (at
// most in.MaxRows findings each, the page says when it stops short) and
// the snapshot's facts. Control characters in the data are neutralised
// (neutralised): the page owns its escaping, and callers never escape.
func HTML(w io.Writer, in *Input) error {
	r := in.Report
	d := htmlData{In: in, R: r, Duration: in.duration(), Period: periodText(r),
		Previous: previousText(r), CountChart: countChart(in.Trend), AmountChart: amountChart(in.Trend),
		NotJudged: r.NotJudgedNotes(), Fields: in.fieldNotes()}
	spans := ruleSpans(r)
	for _, t := range r.Totals() {
		d.Count, d.Waived, d.Resolved = d.Count+t.Count, d.Waived+t.Waived, d.Resolved+t.Resolved
		d.New, d.Recurring = d.New+t.New, d.Recurring+t.Recurring
		hr := htmlRule{Total: t}
		for _, span := range spans[t.Rule.ID] {
			hr.Listed += len(span)
			room := in.MaxRows - len(hr.Shown)
			switch {
			case room <= 0:
			case hr.Shown == nil:
				hr.Shown = span[:min(room, len(span))] // a view of the report's findings
			default: // a second run (the resolved ones): at most MaxRows copied
				hr.Shown = append(hr.Shown[:len(hr.Shown):len(hr.Shown)], span[:min(room, len(span))]...)
			}
		}
		hr.Hidden = hr.Listed - len(hr.Shown)
		d.Rules = append(d.Rules, hr)
	}
	d.Net, d.Gross = netAndGross(r)
	d.Currencies = findings.Currencies(d.Net)
	var b strings.Builder
	if err := page.Execute(&b, d); err != nil {
		return err
	}
	_, err := io.WriteString(w, neutralised(b.String()))
	return err
}

// neutralised is the page with every control character the data put in
// it (C0 but the line feed, C1, DEL, the bidi controls) written as its
// escape, \x1b or \u202e, as on a terminal (termsafe.Lines):
// html/template escapes <, > and &, not these, which a waiver's reason or
// owner, or the service's text, may hold. The template itself holds none
// but line feeds, so the page's markup is unchanged.
func neutralised(page string) string { return termsafe.Lines(page) }

// ruleSpans finds, per rule, the runs of the report's findings that belong
// to it (its open findings, then its resolved ones), as subslices.
func ruleSpans(r *findings.Report) map[string][][]findings.Finding {
	same := func(a, b findings.Finding) bool {
		return a.Rule == b.Rule && (a.Status == findings.StatusResolved) == (b.Status == findings.StatusResolved)
	}
	spans := map[string][][]findings.Finding{}
	for start := 0; start < len(r.Findings); {
		end := start + 1
		for end < len(r.Findings) && same(r.Findings[end], r.Findings[start]) {
			end++
		}
		rule := r.Findings[start].Rule
		spans[rule] = append(spans[rule], r.Findings[start:end])
		start = end
	}
	return spans
}
