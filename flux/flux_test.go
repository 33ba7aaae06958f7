package flux

import (
	"testing"
	"time"

	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/money"
)

func amt(s string) money.Amount {
	a, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	return a
}

// A line is over when its change reaches both the amount and the
// percent, exactly at the edges (no float: 10% of 10,000.01 is
// 1,000.001, which 1,000.00 does not reach); a change from nothing is
// over by percent, and no change never is.
func TestTheThresholdIsExact(t *testing.T) {
	o := DefaultOptions()
	for _, c := range []struct {
		prev, cur string
		over      bool
		pct       string
	}{
		{"10000.00", "11000.00", true, "10.00"},
		{"10000.00", "10999.99", false, "10.00"}, // 999.99 under the amount
		{"10000.01", "11000.01", false, "10.00"}, // 9.99990…%: under the percent
		{"20000.00", "21000.00", false, "5.00"},  // the amount, not the percent
		{"500.00", "1400.00", false, "180.00"},   // the percent, not the amount
		{"0.00", "1000.00", true, ""},            // from nothing
		{"12000.00", "10000.00", true, "-16.67"}, // down counts as much as up
		{"-3000.00", "-1000.00", true, "-66.67"}, // a negative month before
		{"0.00", "0.00", false, ""},
	} {
		l := o.Line(Billed, "EUR", amt(c.prev), amt(c.cur))
		if l.Over != c.over || l.ChangePct != c.pct || l.Change != amt(c.cur)-amt(c.prev) {
			t.Errorf("%s → %s: over %v, %q%%, change %s; want over %v, %q", c.prev, c.cur, l.Over, l.ChangePct, l.Change, c.over, c.pct)
		}
	}
	o = Options{Percent: "12.5", Amount: "0"}
	if !o.Line(Billed, "EUR", amt("8.00"), amt("9.00")).Over || o.Line(Billed, "EUR", amt("8.01"), amt("9.00")).Over {
		t.Error("12.5% of 8.00 is 1.00: reached by 1.00, not by 0.99")
	}
}

// Lines lists each measure in its order and each currency either month
// has, sorted; a currency with nothing in both months has no line.
func TestLinesCoverBothMonths(t *testing.T) {
	prev := map[string]Figures{Billed: {"USD": amt("5"), "EUR": amt("1")}, Credited: {"DKK": 0}}
	cur := map[string]Figures{Billed: {"EUR": amt("2"), "GBP": amt("3")}, MoneyAtRisk: {"EUR": amt("9")}}
	var got []string
	for _, l := range Lines(DefaultOptions(), prev, cur) {
		got = append(got, l.Measure+" "+l.Currency+" "+l.Previous.String()+" "+l.Current.String())
	}
	want := []string{"billed EUR 1.00 2.00", "billed GBP 0.00 3.00", "billed USD 5.00 0.00", "money_at_risk EUR 0.00 9.00"}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines %q, want %q", got, want)
		}
	}
}

// An explanation counts for the figures it was given for: the newest
// one of those figures stands; once the figures move, the newest one
// given is shown, stale, and the line is unexplained again.
func TestAnExplanationGoesStaleWhenTheFiguresMove(t *testing.T) {
	o := DefaultOptions()
	x := func(id, prev, cur string) ledger.Explained {
		return ledger.Explained{Explanation: ledger.Explanation{ID: id, Period: "2026-10", Measure: Billed, Currency: "EUR", Previous: prev, Current: cur, Text: id},
			At: time.Unix(0, 0)}
	}
	xs := []ledger.Explained{x("X1", "1000.00", "5000.00"), x("X2", "1000.00", "6000.00"), x("X3", "1000.00", "5000.00")}
	lines := []Line{o.Line(Billed, "EUR", amt("1000"), amt("5000"))}
	Explain(lines, "2026-10", xs)
	if l := lines[0]; l.Explanation == nil || l.Explanation.ID != "X3" || l.Stale || !l.Explained() {
		t.Fatalf("for 1000 → 5000: %+v", l)
	}
	lines = []Line{o.Line(Billed, "EUR", amt("1000"), amt("7000"))}
	Explain(lines, "2026-10", xs)
	if l := lines[0]; l.Explanation == nil || l.Explanation.ID != "X3" || !l.Stale || l.Explained() || len(Unexplained(lines)) != 1 {
		t.Fatalf("for 1000 → 7000: %+v", l)
	}
	lines = []Line{o.Line(Billed, "EUR", amt("1000"), amt("5000"))}
	Explain(lines, "2026-11", xs)
	if lines[0].Explanation != nil {
		t.Fatalf("another period's explanation counted: %+v", lines[0])
	}
}
