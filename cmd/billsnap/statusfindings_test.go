package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
)

// status's table of runs has the findings of each run's reconciliation,
// as status --format json has: the number (0 when it found none), "-"
// when the run made none (the shared export's run, a failed export).
func TestStatusTableCountsFindings(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	j := journal.New(layout.Dir(dir).Runs(), time.Now)
	for _, end := range []journal.End{
		{Status: journal.Failed, ExitCode: 1, Error: "HTTP 503"},
		{Status: journal.OK, Snapshot: "S0", Findings: new(int)},
		{Status: journal.Material, ExitCode: 3, Snapshot: "S12", Findings: func() *int { n := 12; return &n }()},
	} {
		e, err := j.Start(journal.Run{Job: "run", Period: "2026-10"})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Finish(end); err != nil {
			t.Fatal(err)
		}
	}
	table := e2etest.RunOut(t, srv, "status", "--out", dir)
	var doc struct {
		Runs []struct {
			Outcome  string `json:"outcome"`
			Snapshot *string
			Findings *int `json:"findings"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(e2etest.RunOut(t, srv, "status", "--format", "json", "--out", dir)), &doc); err != nil || len(doc.Runs) != 4 {
		t.Fatalf("status --format json: %d runs, %v", len(doc.Runs), err)
	}
	if !regexp.MustCompile(`(?m)^  started \(UTC\)\s+job\s+schedule\s+period\s+status\s+exit\s+seconds\s+snapshot\s+findings\s+error$`).MatchString(table) {
		t.Fatalf("no findings column:\n%s", table)
	}
	for _, r := range doc.Runs {
		snap, findings := "-", "-"
		if r.Snapshot != nil {
			snap = *r.Snapshot
		}
		if r.Findings != nil {
			findings = strconv.Itoa(*r.Findings)
		}
		line := `(?m)^  \S+ \S+\s+\S+\s+\S+\s+\S+\s+` + r.Outcome + `\s+\d+\s+[\d.]+\s+` + regexp.QuoteMeta(snap) + `\s+` + regexp.QuoteMeta(findings) + `(\s|$)`
		if !regexp.MustCompile(line).MatchString(table) {
			t.Errorf("no line of the %s run with snapshot %s and findings %s (as --format json):\n%s", r.Outcome, snap, findings, table)
		}
	}
}
