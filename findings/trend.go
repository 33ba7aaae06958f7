package findings

import (
	"time"

	"github.com/billsnap/billsnap/money"
)

// TrendPoint is one reconciled snapshot's open findings.
type TrendPoint struct {
	Snapshot   string
	Started    time.Time
	BySeverity map[string]int          // open findings (Finding.IsOpen)
	Amounts    map[string]money.Amount // their amount, per currency
}

// Count is the point's open findings.
func (p TrendPoint) Count() int {
	n := 0
	for _, c := range p.BySeverity {
		n += c
	}
	return n
}
