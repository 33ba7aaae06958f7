package reports

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/findings"
)

// Chart geometry, in SVG units.
const (
	chartW, chartH         = 560.0, 240.0
	padL, padR, padT, padB = 64.0, 16.0, 28.0, 48.0
	plotW, plotH           = chartW - padL - padR, chartH - padT - padB
	legendY                = 14.0
)

var severityColours = map[string]string{"critical": "#8b0000", "high": "#d9480f", "medium": "#e0a800", "low": "#868e96"}
var lineColours = []string{"#1c7ed6", "#2b8a3e", "#ae3ec9", "#e8590c", "#0b7285", "#5c940d", "#862e9c", "#495057"}

// trendLabels are the snapshots' labels under the chart: month-day and
// time to the minute, or to the second when minutes would repeat.
func trendLabels(points []findings.TrendPoint) []string {
	label := func(id string, seconds bool) string {
		if len(id) < 17 {
			return id
		}
		l := id[5:10] + " " + id[11:13] + ":" + id[13:15]
		if seconds {
			l += ":" + id[15:17]
		}
		return l
	}
	out, seen, clash := make([]string, len(points)), map[string]bool{}, false
	for i, p := range points {
		out[i] = label(p.Snapshot, false)
		clash = clash || seen[out[i]]
		seen[out[i]] = true
	}
	if clash {
		for i, p := range points {
			out[i] = label(p.Snapshot, true)
		}
	}
	return out
}

// compact writes an axis amount short: 950, 1.5k, -120k, 2M.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// countChart draws the open findings of each reconciled snapshot as bars
// stacked by severity.
func countChart(points []findings.TrendPoint) template.HTML {
	var b strings.Builder
	most := 1.0
	for _, p := range points {
		most = math.Max(most, float64(p.Count()))
	}
	_, top, step := niceScale(0, most, true)
	openSVG(&b, "Open findings per snapshot")
	fmt.Fprintf(&b, `<desc>The open findings of each of the last %d reconciled snapshots, stacked by severity.</desc>`, len(points))
	axis(&b, 0, top, step, func(v float64) string { return fmt.Sprintf("%.0f", v) })
	bw := plotW / float64(max(len(points), 1))
	labels := trendLabels(points)
	for i, p := range points {
		x, y := padL+float64(i)*bw+bw*0.2, padT+plotH
		for _, sev := range findings.Severities() {
			n := p.BySeverity[sev]
			if n == 0 {
				continue
			}
			h := float64(n) / top * plotH
			y -= h
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %d %s</title></rect>`,
				x, y, bw*0.6, h, severityColours[sev], html.EscapeString(p.Snapshot), n, sev)
		}
		xLabel(&b, x+bw*0.3, labels[i], len(points))
	}
	sevs := findings.Severities()
	legend(&b, sevs, func(i int) string { return severityColours[sevs[i]] })
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// amountChart draws the unwaived amount of each currency as a line over
// the reconciled snapshots.
func amountChart(points []findings.TrendPoint) template.HTML {
	var b strings.Builder
	var currencies []string
	least, most := 0.0, 0.0
	for _, p := range points {
		for c, a := range p.Amounts {
			if !slices.Contains(currencies, c) {
				currencies = append(currencies, c)
			}
			least, most = math.Min(least, float64(a)/100), math.Max(most, float64(a)/100)
		}
	}
	slices.Sort(currencies)
	lo, hi, step := niceScale(least, most, false)
	openSVG(&b, "Unwaived amount per currency")
	axis(&b, lo, hi, step, compact)
	dx := plotW / float64(max(len(points), 1))
	for ci, c := range currencies {
		var pts []string
		for i, p := range points {
			x := padL + dx*(float64(i)+0.5)
			y := padT + plotH - (float64(p.Amounts[c])/100-lo)/(hi-lo)*plotH
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %s: %s</title></circle>`,
				x, y, lineColours[ci%len(lineColours)], html.EscapeString(p.Snapshot), c, p.Amounts[c].Grouped())
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), lineColours[ci%len(lineColours)])
	}
	for i, l := range trendLabels(points) {
		xLabel(&b, padL+dx*(float64(i)+0.5), l, len(points))
	}
	legend(&b, currencies, func(i int) string { return lineColours[i%len(lineColours)] })
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

func openSVG(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		chartW, chartH, chartW, chartH, title)
	fmt.Fprintf(b, `<title>%s</title>`, title)
}

// axis draws the frame, a grid line at every step from lo to hi, and
// their labels.
func axis(b *strings.Builder, lo, hi, step float64, label func(float64) string) {
	for v := lo; v <= hi+step/2; v += step {
		y := padT + plotH - (v-lo)/(hi-lo)*plotH
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dee2e6"/>`, padL, y, padL+plotW, y)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="end" fill="#495057">%s</text>`, padL-6, y+4, label(v))
	}
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#868e96"/>`, padL, padT, padL, padT+plotH)
}

// xLabel writes a snapshot label, turned when there are many.
func xLabel(b *strings.Builder, x float64, text string, n int) {
	y := padT + plotH + 16
	if n > 6 {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="end" fill="#495057" transform="rotate(-35 %.1f %.1f)">%s</text>`,
			x, y, x, y, html.EscapeString(text))
		return
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" fill="#495057">%s</text>`, x, y, html.EscapeString(text))
}

func legend(b *strings.Builder, names []string, colour func(int) string) {
	x := padL
	for i, n := range names {
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/><text x="%.1f" y="%.1f" font-size="11" fill="#212529">%s</text>`,
			x, legendY-9, colour(i), x+14, legendY, html.EscapeString(n))
		x += 22 + 7*float64(len(n))
	}
}

// niceScale widens [lo, hi] to whole steps of 1, 2 or 5 times a power of
// ten, about four of them; whole numbers only when integer is set.
func niceScale(lo, hi float64, integer bool) (float64, float64, float64) {
	if hi-lo <= 0 {
		hi = lo + 1
	}
	raw := (hi - lo) / 4
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	if integer {
		step = math.Max(1, math.Round(step))
	}
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step, step
}

// TrendCharts draws the trend of points, oldest first, as two inline SVG
// charts: the open findings per snapshot by severity, and the unwaived
// amount per currency.
func TrendCharts(points []findings.TrendPoint) (counts, amounts template.HTML) {
	return countChart(points), amountChart(points)
}
