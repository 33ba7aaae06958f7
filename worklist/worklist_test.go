package worklist

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// The due policy reads whole days as "Nd" and refuses anything else with
// a line naming what is wanted; a negative one is refused by Validate.
func TestDaysReadAsNd(t *testing.T) {
	var c Config
	if err := yaml.Unmarshal([]byte("due: {critical: 1d, high: 3d, medium: 0d, low: 45d}"), &c); err != nil {
		t.Fatal(err)
	}
	if c.Due != (Due{Critical: 1, High: 3, Medium: 0, Low: 45}) {
		t.Fatalf("read %+v", c.Due)
	}
	for _, bad := range []string{"5", "5h", "d", "-1d", "1.5d", "[1d]"} {
		err := yaml.Unmarshal([]byte("due: {high: "+bad+"}"), &c)
		if err == nil || !strings.Contains(err.Error(), "want a number of days such as 5d") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	c = Default()
	c.Due.Low = MaxDays + 1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "due.low") {
		t.Fatalf("too long: %v", err)
	}
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
}

// A default due date is the policy's days after the UTC day of the
// assignment.
func TestDueDateBySeverity(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 30, 0, 0, time.FixedZone("x", -3600))
	for sev, want := range map[string]string{"critical": "2026-12-02", "high": "2026-12-05", "medium": "2026-12-10", "low": "2026-12-30", "odd": "2026-12-30"} {
		if got := Default().DueDate(sev, now); got != want {
			t.Errorf("%s: %s, want %s", sev, got, want)
		}
	}
}

// Ages are whole days; the buckets' edges are 1, 7 and 30 days; a finding
// is overdue once its whole due day has passed.
func TestAgesBucketsAndOverdue(t *testing.T) {
	asOf := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		first  time.Time
		age    int
		bucket string
	}{{asOf, 0, "0-1"}, {asOf.Add(time.Hour), 0, "0-1"}, {time.Time{}, 0, "0-1"}, {asOf.Add(-47 * time.Hour), 1, "0-1"},
		{asOf.Add(-48 * time.Hour), 2, "2-7"}, {asOf.AddDate(0, 0, -7), 7, "2-7"}, {asOf.AddDate(0, 0, -8), 8, "8-30"},
		{asOf.AddDate(0, 0, -30), 30, "8-30"}, {asOf.AddDate(0, 0, -31), 31, ">30"}} {
		if got := AgeDays(c.first, asOf); got != c.age || Bucket(got) != c.bucket {
			t.Errorf("first %s: age %d (%s), want %d (%s)", c.first, got, Bucket(got), c.age, c.bucket)
		}
	}
	for due, want := range map[string]bool{"2026-11-28": true, "2026-11-29": false, "2026-11-30": false, "": false, "soon": false} {
		if got := Overdue(due, asOf); got != want {
			t.Errorf("due %q: overdue %v", due, got)
		}
	}
}

// The catalogue of reason codes: the default validates; a configured one
// replaces it whole; a malformed code, a code given twice, a label of two
// lines and an empty catalogue are refused, each naming its key; a code
// not in the catalogue is refused naming the codes it has.
func TestTheCatalogueOfReasons(t *testing.T) {
	if err := Default().Validate(); err != nil || len(Default().Reasons) < 5 {
		t.Fatalf("the default: %d reasons, %v", len(Default().Reasons), err)
	}
	c := Default()
	if err := yaml.Unmarshal([]byte("reasons: [{code: fx_rate, label: Exchange rate}, {code: other, label: Other}]"), &c); err != nil {
		t.Fatal(err)
	}
	if got := c.Codes(); len(got) != 2 || got[0] != "fx_rate" || c.Validate() != nil {
		t.Fatalf("configured: %v, %v", got, c.Validate())
	}
	if err := c.CheckCode("waiver", "fx_rate"); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckCode("waiver", "timing"); err == nil || !strings.Contains(err.Error(), `waiver: reason_code "timing" is not in the catalogue (worklist.reasons): want one of fx_rate, other`) {
		t.Fatalf("an unknown code: %v", err)
	}
	for reasons, key := range map[string]string{
		"[{code: Timing, label: x}]":                 "reasons[0].code",
		"[{code: a, label: x}, {code: a, label: y}]": "reasons[1].code",
		"[{code: a, label: \"two\\nlines\"}]":        "reasons[0].label",
		"[]":                                         "reasons",
		"[{code: " + strings.Repeat("a", 41) + ", label: x}]": "reasons[0].code",
	} {
		c := Default()
		if err := yaml.Unmarshal([]byte("reasons: "+reasons), &c); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), key+":") {
			t.Errorf("%s: %v; want an error naming %s", reasons, err, key)
		}
	}
}
