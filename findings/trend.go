package findings

import (
	"time"

	"github.com/billsnap/billsnap/money"
)

// TrendPoint is one reconciled snapshot's open findings.
type TrendPoint struct {
	Snapshot   string
	Started    time.Time
	BySeverity map[string]int          // open findings, waived included
	Amounts    map[string]money.Amount // unwaived open findings, per currency
}

// Count is the point's open findings.
func (p TrendPoint) Count() int {
	n := 0
	for _, c := range p.BySeverity {
		n += c
	}
	return n
}
