package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// checkSnapshotNames reconciles dir's snapshots by name: the latest (the
// planted run), the previous (the clean export), and an unknown ID, which
// is a usage error listing the newest.
func checkSnapshotNames(t *testing.T, srv *sandbox.Server, dir string) {
	t.Helper()
	if code, _, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--snapshot", "latest"); code != job.ExitMaterial {
		t.Errorf("--snapshot latest: exit %d, %s", code, stderr)
	}
	if code, out, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--snapshot", "previous"); code != job.ExitOK || !strings.Contains(out, "Nothing material.") {
		t.Errorf("--snapshot previous: exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--snapshot", "1999-01-01T000000Z")
	if code != job.ExitUsage || !strings.Contains(stderr, `no snapshot "1999-01-01T000000Z"; the newest are `) || strings.Count(stderr, " (complete)") != 2 {
		t.Errorf("an unknown snapshot: exit %d, %s", code, stderr)
	}
}

// A reconciliation whose material findings are all waived exits 0; the
// waivers are made from the JSON lines of a first reconciliation (that a
// run on planted data exits 3 is TestReconcileExitCodes').
func TestWaivingEveryMaterialFindingExitsZero(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	code, out, _ := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--format", "json")
	if code != job.ExitMaterial {
		t.Fatalf("reconcile --format json: exit %d", code)
	}
	var waivers strings.Builder
	waivers.WriteString("waivers:\n")
	lines := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var f reports.FindingJSON
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		lines++
		if f.Severity == "critical" || f.Severity == "high" {
			fmt.Fprintf(&waivers, "  - {rule: %s, entity_id: %q, reason: known, owner: test, expires: 2999-12-31}\n", f.Rule, f.EntityID)
		}
	}
	if lines < 14 {
		t.Fatalf("%d JSON lines", lines)
	}
	wf := filepath.Join(dir, "waivers.yml")
	os.WriteFile(wf, []byte(waivers.String()), 0o644)
	code, out, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--waivers", wf, "--format", "csv")
	if code != job.ExitOK {
		t.Fatalf("with waivers: exit %d %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != lines+1 || strings.Join(rows[0], ",") != "rule,severity,entity,entity_id,amount,currency,detail,status,first_seen,waived,waiver_reason,waiver_owner,waiver_expires,snapshot_id,waiver_id,waiver_by,live,checked_at,customer_id,customer_name,invoice_number,waiver_reason_code,assignee,due,overdue,comments,resolution_code" {
		t.Fatalf("csv: %d rows, %v", len(rows), err)
	}
	for _, r := range rows[1:] {
		if (r[1] == "critical" || r[1] == "high") != (r[9] == "true") || r[7] != "new" {
			t.Errorf("row %v", r)
		}
	}
}

func TestRunOnAnIncompleteSnapshot(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 74, Customers: 30}, "totalcount=Contacts")
	code, out, _ := e2etest.CLI(t, srv, "run", "--out", t.TempDir(), "--progress", "none")
	if code != job.ExitMaterial || !strings.Contains(out, "# billsnap: UNTRUSTED (exit 3)") || !strings.Contains(out, "the other rules' findings are not trusted") ||
		!strings.Contains(out, "snapshot_incomplete: 1 collection incomplete") || !strings.Contains(out, "| contacts | ") || !strings.Contains(out, "| **no**: ") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
