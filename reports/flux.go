package reports

import (
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/workbook"
)

// SheetFlux is the XLSX sheet of the period's flux review.
const SheetFlux = "Flux"

// Flux is a period's flux review as a report shows it: each measure per
// currency against the month before, with its explanation.
type Flux struct {
	Period, Previous, Snapshot string
	Lines                      []flux.Line
}

// FluxLines are the lines a report gives the flux review: each measure
// in each currency, the month before → the period, its change, and
// whether it is over the threshold and explained.
func (in *Input) FluxLines() []string {
	if in.Flux == nil {
		return nil
	}
	out := make([]string, 0, len(in.Flux.Lines))
	for _, l := range in.Flux.Lines {
		out = append(out, fmt.Sprintf("%s %s: %s → %s, change %s%s; %s", l.Measure, currencyLabel(l.Currency), l.Previous.Grouped(), l.Current.Grouped(),
			l.Change.Grouped(), pctText(l.ChangePct), fluxState(l)))
	}
	return out
}

// pctText is a change in per cent, in brackets; "" without one.
func pctText(pct string) string {
	if pct == "" {
		return ""
	}
	return " (" + pct + "%)"
}

// fluxState says whether l is over the threshold, and how it is
// explained.
func fluxState(l flux.Line) string {
	x := l.Explanation
	switch {
	case !l.Over:
		return "within the threshold"
	case x == nil:
		return "over the threshold, not explained"
	case l.Stale:
		return fmt.Sprintf("over the threshold; its explanation %s (for %s → %s) is stale, the figures moved since", x.ID, x.Previous, x.Current)
	}
	return fmt.Sprintf("over the threshold, explained by %s, %s (%s): “%s”", x.By, x.At.UTC().Format(timeFormat), x.ID, strings.Join(strings.Fields(x.Text), " "))
}

// fluxPage is the Flux sheet: a row per line of the review, figures as
// their exact decimal text.
func (b *xlsxBook) fluxPage(in *Input) sheetPage {
	cols := []string{"Measure", "Currency", in.Flux.Previous, in.Flux.Period, "Change", "Change %", "Over the threshold", "Explanation"}
	return sheetPage{workbook.Sheet{Name: SheetFlux, Widths: []float64{18, 10, 16, 16, 16, 10, 10, 80}, HeaderRows: 1, Rows: len(in.Flux.Lines) + 1},
		func(add func(...any) error) error {
			if err := add(headerRow(cols...)...); err != nil {
				return err
			}
			for _, l := range in.Flux.Lines {
				over := "no"
				if l.Over {
					over = "yes"
				}
				if err := add(l.Measure, l.Currency, l.Previous.String(), l.Current.String(), l.Change.String(), l.ChangePct, over, fluxState(l)); err != nil {
					return err
				}
			}
			return nil
		}}
}
