package reconcile

import (
	"time"

	"github.com/billsnap/billsnap/findings"
)

// The functions of package findings this package's tests call by the
// names they had when they were reconcile's.

func ParsePeriod(s string) (*Period, error)     { return findings.ParsePeriod(s) }
func MonthOf(t time.Time, offset int) *Period   { return findings.MonthOf(t, offset) }
func LoadWaivers(path string) ([]Waiver, error) { return findings.LoadWaivers(path) }
func DefaultMateriality() Materiality           { return findings.DefaultMateriality() }
func Severities() []string                      { return findings.Severities() }
func judge(r *Report, m Materiality) []string   { return r.Judge(m) }
