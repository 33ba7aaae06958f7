package findings

import (
	"testing"
	"time"
)

// A period is a month, written YYYY-MM, in UTC; it ends where the next
// begins, and MonthOf counts months from the one a time falls in.
func TestPeriodsAreMonths(t *testing.T) {
	p, err := ParsePeriod("2026-10")
	if err != nil || p.String() != "2026-10" || !p.End().Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("ParsePeriod(2026-10) = %v, %v", p, err)
	}
	for _, bad := range []string{"October", "2026-13", ""} {
		if _, err := ParsePeriod(bad); err == nil {
			t.Errorf("ParsePeriod(%q) accepted", bad)
		}
	}
	late := time.Date(2026, 10, 31, 23, 30, 0, 0, time.FixedZone("UTC-2", -2*3600))
	for offset, want := range map[int]string{0: "2026-11", -1: "2026-10", -11: "2025-12"} {
		if got := MonthOf(late, offset).String(); got != want {
			t.Errorf("MonthOf(%v, %d) = %s, want %s", late, offset, got, want)
		}
	}
	var none *Period
	if none.String() != "" {
		t.Errorf("the nil period is %q, want empty", none.String())
	}
}
