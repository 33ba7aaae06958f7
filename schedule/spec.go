package schedule

import (
	"errors"
	"fmt"
	"slices"

	_ "time/tzdata" // CRON_TZ works without the system's zone files

	"github.com/robfig/cron/v3"

	"github.com/billsnap/billsnap/configkey"
)

// Schedule is a job billsnap schedule runs on a cron spec: an entry of the
// configuration's schedules key.
type Schedule struct {
	Name   string `yaml:"name"`
	Spec   string `yaml:"spec"`   // 5 fields, CRON_TZ=… allowed, or a descriptor (@daily, @every 1h)
	Job    string `yaml:"job"`    // export, reconcile or run
	Period string `yaml:"period"` // for reconcile and run: previous-month, current-month or none
}

// cronParser reads schedule specs: five fields (minute, hour, day of
// month, month, day of week), an optional CRON_TZ= prefix, or a descriptor
// such as @daily, @hourly or @every 30m.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// jobs a schedule can run, and the periods of reconcile and run.
var (
	jobs    = []string{"export", "reconcile", "run"}
	periods = []string{"", "none", "previous-month", "current-month"}
)

// Validate returns every problem of the schedules, each a
// *configkey.Error whose key names the schedule ([nightly].spec, or
// [2].name for one without a name), relative to the schedules key.
func Validate(specs []Schedule) error {
	var errs []error
	seen := map[string]bool{}
	for i, s := range specs {
		key := fmt.Sprintf("[%d]", i)
		if s.Name != "" {
			key = "[" + s.Name + "]"
		}
		bad := func(field, format string, args ...any) {
			errs = append(errs, configkey.Errorf(key+"."+field, format, args...))
		}
		switch {
		case s.Name == "":
			bad("name", "every schedule needs a name")
		case seen[s.Name]:
			bad("name", "the name %q is used twice", s.Name)
		}
		seen[s.Name] = true
		if _, err := cronParser.Parse(s.Spec); err != nil {
			bad("spec", "%q is not a cron spec (5 fields, CRON_TZ= allowed, or @daily, @every 1h): %v", s.Spec, err)
		}
		if !slices.Contains(jobs, s.Job) {
			bad("job", "must be export, reconcile or run, not %q", s.Job)
		}
		if !slices.Contains(periods, s.Period) {
			bad("period", "must be previous-month, current-month or none, not %q", s.Period)
		} else if s.Job == "export" && s.Period != "" && s.Period != "none" {
			bad("period", "an export has no period")
		}
	}
	return errors.Join(errs...)
}
