// Package worklist is the work a finding asks of finance: who it is
// assigned to, by when, and how old it is. It holds the policy of default
// due dates by severity (config key worklist, [Config]) and the
// arithmetic of age, aging buckets and overdue; the assignments themselves
// are ledger entries (package ledger).
//
// [Read] makes the work of a reconciliation's findings (a [Reading]) of
// the ledger's assignments and the snapshots' starts, which its caller
// reads from the store: worklist links no database. [Objects] and [JSONLines] make the findings' JSON
// objects with their work, which /api/findings and reconcile --format json
// both write.
package worklist

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/billsnap/billsnap/configkey"
	"gopkg.in/yaml.v3"
)

// Config is the config key worklist.
type Config struct {
	Due Due `yaml:"due"`
	// Reasons is the catalogue of reason codes that waivers and
	// resolutions give (reasons.go), in the order forms offer them.
	Reasons []Reason `yaml:"reasons"`
}

// Due is how long a finding of each severity is given by default, from
// the day it is assigned, when an assignment names no due date.
type Due struct {
	Critical Days `yaml:"critical"`
	High     Days `yaml:"high"`
	Medium   Days `yaml:"medium"`
	Low      Days `yaml:"low"`
}

// Default is 2 days for a critical finding, 5 high, 10 medium, 30 low,
// and the default catalogue of reasons.
func Default() Config {
	return Config{Due: Due{Critical: 2, High: 5, Medium: 10, Low: 30}, Reasons: DefaultReasons()}
}

// IsZero tells whether c is the zero Config: no policy and no catalogue.
func (c Config) IsZero() bool { return c.Due == (Due{}) && c.Reasons == nil }

// Validate checks the keys (relative to worklist), every problem an error
// naming its key.
func (c Config) Validate() error {
	var errs []error
	for _, d := range []struct {
		key string
		v   Days
	}{{"critical", c.Due.Critical}, {"high", c.Due.High}, {"medium", c.Due.Medium}, {"low", c.Due.Low}} {
		if d.v < 0 || d.v > MaxDays {
			errs = append(errs, configkey.Errorf("due."+d.key, "must be from 0d to %dd, not %dd", MaxDays, int(d.v)))
		}
	}
	errs = append(errs, validateReasons(c.Reasons)...)
	return errors.Join(errs...)
}

// For is the number of days a finding of severity is given; an unknown
// severity is given the low one's.
func (d Due) For(severity string) Days {
	switch severity {
	case "critical":
		return d.Critical
	case "high":
		return d.High
	case "medium":
		return d.Medium
	}
	return d.Low
}

// DueDate is the default due date, YYYY-MM-DD, of a finding of severity
// assigned at now (its UTC day).
func (c Config) DueDate(severity string, now time.Time) string {
	return now.UTC().AddDate(0, 0, int(c.Due.For(severity))).Format(time.DateOnly)
}

// MaxDays is the longest a due policy gives: ten years.
const MaxDays = 3650

// Days is a number of whole days, written as in "5d".
type Days int

// UnmarshalYAML reads "Nd", N a whole number of days; anything else is an
// error saying what is wanted.
func (d *Days) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseDays(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: want a number of days such as 5d, not %q", n.Line, n.Value)
	}
	*d = v
	return nil
}

// MarshalYAML writes d as "Nd".
func (d Days) MarshalYAML() (any, error) { return d.String(), nil }

func (d Days) String() string { return strconv.Itoa(int(d)) + "d" }

// ParseDays reads "Nd", N a whole number from 0.
func ParseDays(s string) (Days, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "d")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 0 || strings.HasPrefix(num, "+") {
		return 0, fmt.Errorf("%q: want a number of days such as 5d", s)
	}
	return Days(n), nil
}
