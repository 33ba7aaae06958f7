package reports

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/money"
)

// The overview's charts are small multiples: each draws one quantity in
// one unit (a count, or money of one currency, never two currencies on
// one axis), in a box of smallW by smallH, and is an accessible image: a
// title and a description that says what it shows in words, named by
// aria-labelledby; each mark carries its value as data-* attributes and a
// tooltip.
const (
	smallW, smallH = 420.0, 200.0
	smallT, smallB = 16.0, 30.0 // room above the plot and under it (labels)
)

// GrossPoint is the money at risk in one currency at one reconciled
// snapshot: the gross of its open, unwaived findings.
type GrossPoint struct {
	Snapshot string
	Gross    money.Amount
}

// Bar is one bar of a chart of counts: its label and its count.
type Bar struct {
	Label string
	N     int
}

// openSmall starts an SVG of w by h whose title and description are
// title and desc, their IDs made from id.
func openSmall(b *strings.Builder, id, title, desc string, h float64) {
	id = html.EscapeString(id)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-labelledby="%s-title %s-desc">`,
		smallW, h, smallW, h, id, id)
	fmt.Fprintf(b, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, id, html.EscapeString(title), id, html.EscapeString(desc))
}

// GrossChart draws the money at risk in currency over points (oldest
// first) as a line from 0 up, each point labelled by its snapshot below
// and the newest by its amount. id names the chart's title and
// description in the page.
func GrossChart(id, currency string, points []GrossPoint) template.HTML {
	var b strings.Builder
	most := 0.0
	for _, p := range points {
		most = math.Max(most, float64(p.Gross)/100)
	}
	desc := fmt.Sprintf("The gross amount in %s of the open findings not waived, at each of the last %d reconciled snapshots.", currency, len(points))
	if n := len(points); n > 0 {
		desc += fmt.Sprintf(" %s %s at %s, %s %s at %s.", currency, points[0].Gross.Grouped(), points[0].Snapshot, currency, points[n-1].Gross.Grouped(), points[n-1].Snapshot)
	}
	openSmall(&b, id, "Money at risk in "+currency+", gross", desc, smallH)
	_, top, step := niceScale(0, most, false)
	left, right := 56.0, 16.0
	plotW, plotH := smallW-left-right, smallH-smallT-smallB
	for v := 0.0; v <= top+step/2; v += step {
		y := smallT + plotH - v/top*plotH
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dee2e6"/><text x="%.1f" y="%.1f" font-size="11" text-anchor="end" fill="#495057">%s</text>`,
			left, y, left+plotW, y, left-6, y+4, compact(v))
	}
	dx := plotW / float64(max(len(points), 1))
	labels := trendLabels(trendOf(points))
	var line []string
	for i, p := range points {
		x, y := left+dx*(float64(i)+0.5), smallT+plotH-float64(p.Gross)/100/top*plotH
		line = append(line, fmt.Sprintf("%.1f,%.1f", x, y))
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="#1c7ed6" data-snapshot="%s" data-gross="%s"><title>%s: %s %s</title></circle>`,
			x, y, html.EscapeString(p.Snapshot), p.Gross.String(), html.EscapeString(p.Snapshot), currency, p.Gross.Grouped())
		if i == 0 || i == len(points)-1 || len(points) <= 4 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="#495057">%s</text>`, x, smallH-10, html.EscapeString(labels[i]))
		}
	}
	if len(line) > 1 {
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#1c7ed6" stroke-width="2"/>`, strings.Join(line, " "))
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// trendOf is points as trend points, for their labels.
func trendOf(points []GrossPoint) []findings.TrendPoint {
	out := make([]findings.TrendPoint, len(points))
	for i, p := range points {
		out[i].Snapshot = p.Snapshot
	}
	return out
}

// AgingChart draws the open findings not waived by age, a bar for each
// bucket (worklist.Buckets), its count above it.
func AgingChart(id string, bars []Bar) template.HTML {
	var b strings.Builder
	words := make([]string, len(bars))
	most := 1
	for i, r := range bars {
		words[i] = fmt.Sprintf("%s days: %d", r.Label, r.N)
		most = max(most, r.N)
	}
	openSmall(&b, id, "Aging of the open findings", "Open findings not waived, by days since first seen. "+strings.Join(words, "; ")+".", smallH)
	left := 16.0
	plotW, plotH := smallW-2*left, smallH-smallT-smallB-14
	bw := plotW / float64(max(len(bars), 1))
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#868e96"/>`, left, smallT+14+plotH, left+plotW, smallT+14+plotH)
	for i, r := range bars {
		h := float64(r.N) / float64(most) * plotH
		x, y := left+float64(i)*bw+bw*0.2, smallT+14+plotH-h
		colour := "#1c7ed6"
		if i == len(bars)-1 {
			colour = "#b3261e"
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" data-bucket="%s" data-count="%d"><title>%s days: %d</title></rect>`,
			x, y, bw*0.6, h, colour, html.EscapeString(r.Label), r.N, html.EscapeString(r.Label), r.N)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="12" text-anchor="middle" fill="#212529">%d</text>`, x+bw*0.3, y-4, r.N)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" fill="#495057">%s d</text>`, x+bw*0.3, smallH-10, html.EscapeString(r.Label))
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// RuleChart draws the open findings of each rule as horizontal bars, in
// the order given, each labelled by its rule and count.
func RuleChart(id string, bars []Bar) template.HTML {
	var b strings.Builder
	words := make([]string, len(bars))
	most := 1
	for i, r := range bars {
		words[i] = fmt.Sprintf("%s: %d", r.Label, r.N)
		most = max(most, r.N)
	}
	row := 22.0
	h := smallT + row*float64(max(len(bars), 1)) + 8
	openSmall(&b, id, "Open findings by rule", "Open findings not waived, per rule. "+strings.Join(words, "; ")+".", h)
	left, right := 190.0, 44.0
	plotW := smallW - left - right
	for i, r := range bars {
		y := smallT + row*float64(i)
		w := float64(r.N) / float64(most) * plotW
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="end" fill="#212529">%s</text>`, left-6, y+12, html.EscapeString(r.Label))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="14" fill="#1c7ed6" data-rule="%s" data-count="%d"><title>%s: %d</title></rect>`,
			left, y+2, w, html.EscapeString(r.Label), r.N, html.EscapeString(r.Label), r.N)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" fill="#212529">%d</text>`, left+w+4, y+12, r.N)
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// FluxChart draws the flux lines of one currency: for each measure, the
// month before (grey) and this period (blue, red when over the threshold)
// as horizontal bars on one axis of that currency.
func FluxChart(id, currency string, lines []flux.Line) template.HTML {
	var b strings.Builder
	lo, hi := 0.0, 0.0
	words := make([]string, len(lines))
	for i, l := range lines {
		for _, a := range []money.Amount{l.Previous, l.Current} {
			lo, hi = math.Min(lo, float64(a)/100), math.Max(hi, float64(a)/100)
		}
		words[i] = fmt.Sprintf("%s %s → %s", l.Measure, l.Previous.Grouped(), l.Current.Grouped())
		if l.Over {
			words[i] += " (over the threshold)"
		}
	}
	row := 40.0
	h := smallT + row*float64(max(len(lines), 1)) + 18
	openSmall(&b, id, "Flux in "+currency+": the month before and this one",
		"Each measure in "+currency+", the month before against this period. "+strings.Join(words, "; ")+".", h)
	lo, hi, step := niceScale(lo, hi, false)
	left, right := 120.0, 16.0
	plotW := smallW - left - right
	x := func(v float64) float64 { return left + (v-lo)/(hi-lo)*plotW }
	bottom := smallT + row*float64(len(lines))
	for v := lo; v <= hi+step/2; v += step {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dee2e6"/><text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="#495057">%s</text>`,
			x(v), smallT, x(v), bottom, x(v), bottom+12, compact(v))
	}
	for i, l := range lines {
		y := smallT + row*float64(i)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="end" fill="#212529">%s</text>`, left-6, y+20, html.EscapeString(strings.ReplaceAll(l.Measure, "_", " ")))
		colour := "#1c7ed6"
		if l.Over {
			colour = "#b3261e"
		}
		for j, a := range []money.Amount{l.Previous, l.Current} {
			v := float64(a) / 100
			x0, x1 := math.Min(x(0), x(v)), math.Max(x(0), x(v))
			fill := "#adb5bd"
			if j == 1 {
				fill = colour
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="13" fill="%s"><title>%s %s, %s: %s</title></rect>`,
				x0, y+4+15*float64(j), math.Max(x1-x0, 0.5), fill, html.EscapeString(l.Measure), currency, [2]string{"the month before", "this period"}[j], a.Grouped())
		}
		fmt.Fprintf(&b, `<g data-measure="%s" data-currency="%s" data-over="%t" data-previous="%s" data-current="%s"></g>`,
			html.EscapeString(l.Measure), html.EscapeString(currency), l.Over, l.Previous, l.Current)
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}
