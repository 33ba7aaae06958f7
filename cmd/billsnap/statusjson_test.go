package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/status"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
)

var updateStatusKeys = flag.Bool("update-status-keys", false, "rewrite testdata/status_keys.golden")

// status --format json parses, names each run's outcome with its exit
// code, findings and whether it was material, gives each schedule's next
// fire, and keeps its keys: the golden file is the schema's contract
// (docs/operations.md); a change to it is a new schema version.
func TestStatusJSON(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	recordRuns(t, out)
	cfgFile := filepath.Join(t.TempDir(), "billsnap.yaml")
	cfgText := "schedules:\n  - {name: nightly, spec: \"0 3 * * *\", job: run}\n"
	if err := os.WriteFile(cfgFile, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := e2etest.RunWith(context.Background(), []string{"status", "--format", "json", "--out", out, "--config", cfgFile}, &stdout, &stderr, e2etest.NoEnv)
	if code != job.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("status --format json does not parse: %v\n%s", err, stdout.String())
	}
	runs, _ := doc["runs"].([]any)
	var got []string
	for _, r := range runs {
		r := r.(map[string]any)
		got = append(got, strings.Join([]string{fmt.Sprint(r["job"]), fmt.Sprint(r["outcome"]), jsonText(r["exit_code"]), jsonText(r["findings"]), jsonText(r["material"])}, " "))
	}
	want := []string{"export running null null false", "run interrupted 130 null false", "run material 3 4 true", "export ok 0 null false"}
	if !slices.Equal(got, want) {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s, _ := doc["schedules"].([]any); len(s) != 1 || s[0].(map[string]any)["name"] != "nightly" || s[0].(map[string]any)["next"] == nil {
		t.Errorf("schedules: %v", doc["schedules"])
	}
	var snap map[string]any // null here: no snapshot taken; its keys are the type's
	b, _ := json.Marshal(status.Snapshot{})
	json.Unmarshal(b, &snap)
	var verified map[string]any // null here: no --verify; its keys are the type's
	b, _ = json.Marshal(status.Verified{Differ: []status.Differ{{}}})
	json.Unmarshal(b, &verified)
	keys := append(keyPaths("", doc), keyPaths("latest_snapshot.", snap)...)
	keys = append(keys, keyPaths("verified.", verified)...)
	slices.Sort(keys)
	checkGolden(t, filepath.Join("testdata", "status_keys.golden"), strings.Join(keys, "\n")+"\n")
}

// recordRuns writes four runs into the journal of out, oldest first: an
// export ok, a run material with 4 findings, a run interrupted, and an
// export still running; and a failed notification.
func recordRuns(t *testing.T, out string) {
	t.Helper()
	at := time.Now().Add(-10 * time.Second) // the running run seen alive within journal.Stale
	jr := journal.New(layout.Dir(out).Runs(), func() time.Time { at = at.Add(time.Second); return at })
	four := 4
	ends := []struct {
		job string
		end *journal.End
	}{
		{"export", &journal.End{Status: journal.OK, Snapshot: "s1"}},
		{"run", &journal.End{Status: journal.Material, ExitCode: 3, Snapshot: "s2", Findings: &four}},
		{"run", &journal.End{Status: journal.Interrupted, ExitCode: 130, Error: "interrupted by SIGTERM before it finished (exit 130)"}},
		{"export", nil},
	}
	for _, e := range ends {
		entry, err := jr.Start(journal.Run{Job: e.job, Schedule: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		if e.end != nil {
			if err := entry.Finish(*e.end); err != nil {
				t.Fatal(err)
			}
		}
	}
	d := journal.Delivery{Time: at, Target: "ops", Event: "failure", Key: "k", Result: journal.DeliveryFailed, Error: "503"}
	if err := journal.DeliveriesIn(layout.Dir(out).Notifications()).Add(d); err != nil {
		t.Fatal(err)
	}
}

// jsonText is a JSON value as text: null, a number, a bool.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// keyPaths are the paths of every key of v, an element of an array
// standing for them all ("runs[].job"), sorted and once each.
func keyPaths(prefix string, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out = append(out, prefix+k)
			out = append(out, keyPaths(prefix+k+".", x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, keyPaths(strings.TrimSuffix(prefix, ".")+"[].", x)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkGolden compares got with the file golden, or rewrites it with
// -update-status-keys.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *updateStatusKeys {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("status --format json's keys changed (a new schema version, and docs/operations.md):\ngot:\n%swant:\n%s", got, want)
	}
}
