package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// The demo's next steps say what each exit code they end with means:
// recheck and run end with exit 3, material findings, as the sandbox
// plants them; the others with 0. Under go run, which prints billsnap's
// exit 3 as "exit status 3" and exits 1 itself, they say so.
func TestTheDemosNextStepsSayWhatTheirExitCodesMean(t *testing.T) {
	t.Parallel()
	d := demoData{seed: 1, customers: 250, now: time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)}
	comment := regexp.MustCompile(`  # exit (\d+)(.*?): (.+)$`)
	for _, self := range []string{"billsnap", "go run ./cmd/billsnap"} {
		var b strings.Builder
		printNextSteps(&b, self, "tour", d)
		text := b.String()
		if !strings.Contains(text, "exit 0 unless") {
			t.Errorf("%s: the steps do not say they end with exit 0 unless told:\n%s", self, text)
		}
		for _, cmd := range []string{" recheck ", " run "} {
			line := lineWith(text, self+cmd)
			m := comment.FindStringSubmatch(line)
			if m == nil || m[1] != "3" || !strings.Contains(m[3], "material") {
				t.Errorf("%s: %q does not say it ends with exit 3, material findings", self, line)
			}
			if goRun := strings.HasPrefix(self, "go run"); m != nil && goRun != strings.Contains(m[2], `"exit status 3"`) {
				t.Errorf("%s: %q says %q of go run's exit status", self, line, m[2])
			}
		}
		for _, cmd := range []string{" fix plan ", " fix apply ", " changes "} {
			if line := lineWith(text, self+cmd); strings.Contains(line, "# exit") {
				t.Errorf("%s: %q, which ends with exit 0, says otherwise", self, line)
			}
		}
	}
}

// lineWith is the first line of text that holds s.
func lineWith(text, s string) string {
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			return strings.TrimRight(line, "\n")
		}
	}
	return ""
}
