package schedule

import (
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
)

// ready checks r at now: ready when want is "", else not ready for a
// reason that contains want.
func ready(t *testing.T, r *Readiness, now time.Time, want string) {
	t.Helper()
	err := r.Check(now)
	switch {
	case want == "" && err != nil:
		t.Errorf("not ready at %s: %v", now.Format(time.TimeOnly), err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("at %s: %v, want a reason with %q", now.Format(time.TimeOnly), err, want)
	case err != nil && strings.Contains(err.Error(), "\n"):
		t.Errorf("the reason is more than one line: %q", err)
	}
}

// Readiness follows each schedule's runs: a failure is not ready until a
// success, material findings are a success, an interrupted run changes
// nothing, a success older than twice the interval (plus what the run
// took) is stale, and a failure before a restart is still one after.
func TestReadinessFollowsTheRuns(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	specs := []Schedule{{Name: "quick", Spec: "@every 10s", Job: "export"}, {Name: "nightly", Spec: "0 3 * * *", Job: "run"}}
	r := NewReadiness(specs, t0, nil, &journal.Backlog{}, StoreProbe{Out: layout.Dir(t.TempDir())})
	ready(t, r, t0, "")
	r.Ended("quick", t0, t0.Add(2*time.Second), 1, "HTTP 401: refused\n  the service refused the API key from BILLSNAP_API_KEY_FILE (the file /k): check the key there")
	ready(t, r, t0.Add(3*time.Second), "the last run of schedule quick failed (exit 1) at 2026-11-29T03:00:02Z: HTTP 401: refused — the service refused the API key from BILLSNAP_API_KEY_FILE")
	r.Ended("quick", t0.Add(10*time.Second), t0.Add(13*time.Second), 130, "interrupted")
	ready(t, r, t0.Add(14*time.Second), "quick failed")
	r.Ended("quick", t0.Add(20*time.Second), t0.Add(23*time.Second), 3, "")
	ready(t, r, t0.Add(24*time.Second), "")
	ready(t, r, t0.Add(23*time.Second+23*time.Second), "") // 2 × 10 s + the 3 s it took
	ready(t, r, t0.Add(23*time.Second+24*time.Second), "schedule quick is stale: its last success ended 24s ago")
	r.Ended("quick", t0.Add(40*time.Second), t0.Add(41*time.Second), 0, "")
	ready(t, r, t0.Add(42*time.Second), "")
	ready(t, r, t0.Add(49*time.Hour), "schedule quick is stale") // and nightly, which never succeeded: quick is first

	runs := []journal.Run{ // newest first, as the journal lists them
		{Schedule: "nightly", Status: journal.Interrupted, Started: t0.Add(-time.Hour), Finished: t0.Add(-time.Hour)},
		{Schedule: "nightly", Status: journal.Failed, ExitCode: 1, Error: "disk full", Started: t0.Add(-25 * time.Hour), Finished: t0.Add(-25 * time.Hour)},
		{Schedule: "nightly", Status: journal.OK, Started: t0.Add(-49 * time.Hour), Finished: t0.Add(-49 * time.Hour)},
	}
	restarted := NewReadiness(specs, t0, runs, &journal.Backlog{}, StoreProbe{Out: layout.Dir(t.TempDir())})
	ready(t, restarted, t0, "the last run of schedule nightly failed (exit 1) at 2026-11-28T02:00:00Z: disk full")
}

// A run the journal could not take, a store that cannot take a file and
// a store out of space are each not ready, and /readyz answers 503 with
// the reason in one line.
func TestReadinessProbesTheStore(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	specs := []Schedule{{Name: "quick", Spec: "@every 2s", Job: "export"}}
	out := layout.Dir(t.TempDir())
	backlog := &journal.Backlog{}
	r := NewReadiness(specs, t0, nil, backlog, StoreProbe{Out: out})
	ready(t, r, t0, "") // no store yet: its nearest folder takes the probe

	backlog.Add(journal.Unwritten(journal.Run{Job: "export", Schedule: "quick"}, t0, 1, "recording the run: no space left on device"), errors.New("no space left on device"))
	ready(t, r, t0, "1 run(s) could not be recorded in the journal (kept in memory until a run can write): no space left on device")
	if err := backlog.Flush(out.Runs()); err != nil {
		t.Fatal(err)
	}
	ready(t, r, t0, "")

	os.RemoveAll(out.Runs())
	if err := os.WriteFile(out.Runs(), nil, 0o644); err != nil { // a file where the journal's folder goes: nothing can be written there, root or not
		t.Fatal(err)
	}
	ready(t, r, t0, "the store "+string(out)+" is not writable: "+out.Runs()+" is not a folder")
	os.Remove(out.Runs())

	full := NewReadiness(specs, t0, nil, backlog, StoreProbe{Out: out, MinFree: 1 << 62})
	ready(t, full, t0, "the store "+string(out)+" is out of space")
	rec := httptest.NewRecorder()
	full.Handler(func() time.Time { return t0 }).ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != 503 || strings.Count(string(body), "\n") != 1 || !strings.HasPrefix(string(body), "not ready: the store") {
		t.Errorf("/readyz: %d %q", rec.Code, body)
	}
	rec = httptest.NewRecorder()
	r.Handler(func() time.Time { return t0 }).ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != 200 || rec.Body.String() != "ready\n" {
		t.Errorf("/readyz: %d %q", rec.Code, rec.Body.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(out.Runs())); len(entries) != 0 {
		t.Errorf("the probe left %d files", len(entries))
	}
}
