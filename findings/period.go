package findings

import (
	"fmt"
	"time"
)

// Period is a calendar month in UTC.
type Period struct{ Start time.Time }

// ParsePeriod reads YYYY-MM.
func ParsePeriod(s string) (*Period, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil {
		return nil, fmt.Errorf("period %q: want a month as YYYY-MM, such as 2026-10", s)
	}
	return &Period{Start: t.UTC()}, nil
}

// MonthOf is the month t falls in; with offset -1, the month before.
func MonthOf(t time.Time, offset int) *Period {
	t = t.UTC()
	return &Period{Start: time.Date(t.Year(), t.Month()+time.Month(offset), 1, 0, 0, 0, 0, time.UTC)}
}

// End is the first instant after the period.
func (p *Period) End() time.Time { return p.Start.AddDate(0, 1, 0) }

// String is YYYY-MM; the nil period is "".
func (p *Period) String() string {
	if p == nil {
		return ""
	}
	return p.Start.Format("2006-01")
}
