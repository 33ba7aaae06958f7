package config

import (
	"fmt"
	"slices"

	_ "time/tzdata" // CRON_TZ works without the system's zone files

	"github.com/robfig/cron/v3"
)

// CronParser reads schedule specs: five fields (minute, hour, day of month,
// month, day of week), an optional CRON_TZ= prefix, or a descriptor such as
// @daily, @hourly or @every 30m.
var CronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Jobs a schedule can run, and the periods of reconcile and run.
var (
	Jobs    = []string{"export", "reconcile", "run"}
	Periods = []string{"", "none", "previous-month", "current-month"}
)

// validateSchedules checks each schedule, naming it in the key.
func (c *Config) validateSchedules(bad func(key, format string, args ...any)) {
	seen := map[string]bool{}
	for i, s := range c.Schedules {
		key := fmt.Sprintf("schedules[%d]", i)
		if s.Name != "" {
			key = "schedules[" + s.Name + "]"
		}
		switch {
		case s.Name == "":
			bad(key+".name", "every schedule needs a name")
		case seen[s.Name]:
			bad(key+".name", "the name %q is used twice", s.Name)
		}
		seen[s.Name] = true
		if _, err := CronParser.Parse(s.Spec); err != nil {
			bad(key+".spec", "%q is not a cron spec (5 fields, CRON_TZ= allowed, or @daily, @every 1h): %v", s.Spec, err)
		}
		if !slices.Contains(Jobs, s.Job) {
			bad(key+".job", "must be export, reconcile or run, not %q", s.Job)
		}
		if !slices.Contains(Periods, s.Period) {
			bad(key+".period", "must be previous-month, current-month or none, not %q", s.Period)
		} else if s.Job == "export" && s.Period != "" && s.Period != "none" {
			bad(key+".period", "an export has no period")
		}
	}
	if c.Retention.Keep < 0 {
		bad("retention.keep", "must be 0 (keep all) or more")
	}
	if c.LockWait < 0 {
		bad("lock_wait", "must not be negative")
	}
}
