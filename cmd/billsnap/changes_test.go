//go:build heavy

package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
)

// billsnap changes prints exactly the records a back office inserted,
// updated (with their fields) and deleted between two exports; query
// --as-of reads the store as the first export had it; a moment before
// the history, or a snapshot it does not have, is exit 2 naming the
// nearest.
func TestChangesBetweenTwoExports(t *testing.T) {
	srv, dir := e2etest.Exported(t, e2etest.CleanOptions)
	cs := srv.Dataset().Customers
	updated, deleted := cs[0], cs[1]
	oldEmail := updated.Email
	if err := srv.Change("Customers", updated.ID, func(r any) { r.(*sandbox.Customer).Email = "changed@example.com" }); err != nil {
		t.Fatal(err)
	}
	if err := srv.Remove("Customers", deleted.ID); err != nil {
		t.Fatal(err)
	}
	inserted := &sandbox.Customer{ID: "00000000-0000-4000-8000-00000000c0de", FullName: "New", CurrencyCode: "USD", Created: srv.Now()}
	if err := srv.Add("Customers", inserted); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none"); code != job.ExitOK {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}

	code, out, stderr := e2etest.CLI(t, srv, "changes", "--out", dir, "--format", "json")
	if code != job.ExitOK {
		t.Fatalf("changes: exit %d: %s", code, stderr)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("changes --format json: %v\n%s", err, out)
	}
	var ops []string
	for _, c := range got {
		if len(c) != 6 || c["from_snapshot"] == "" || c["to_snapshot"] == "" || c["from_snapshot"] == c["to_snapshot"] {
			t.Errorf("a change with other keys or snapshots: %v", c)
		}
		fields, _ := json.Marshal(c["fields"])
		ops = append(ops, c["table"].(string)+" "+c["id"].(string)+" "+c["op"].(string)+" "+string(fields))
	}
	want := []string{"customers " + deleted.ID + " delete []", "customers " + inserted.ID + " insert []", `customers ` + updated.ID + ` update ["Email"]`}
	if !slices.Equal(ops, want) {
		t.Errorf("changes --format json:\n got %q\nwant %q", ops, want)
	}

	_, text, _ := e2etest.CLI(t, srv, "changes", "--out", dir, "--table", "customers")
	for _, w := range []string{"customers: 1 inserted, 1 updated, 1 deleted", `Email: "` + oldEmail + `" -> "changed@example.com"`} {
		if !strings.Contains(text, w) {
			t.Errorf("changes (text) does not say %q:\n%s", w, text)
		}
	}

	first := got[0]["from_snapshot"].(string)
	code, asOf, stderr := e2etest.CLI(t, srv, "query", "--out", dir, "--as-of", first, "--format", "csv",
		"SELECT count(*) FILTER (id = '"+deleted.ID+"'), count(*) FILTER (id = '"+inserted.ID+"'), max(email) FILTER (id = '"+updated.ID+"') FROM latest_customers")
	if code != job.ExitOK || !strings.Contains(asOf, "1,0,"+oldEmail) {
		t.Errorf("query --as-of %s: exit %d, %q %s (want the first export's customers)", first, code, asOf, stderr)
	}

	for _, bad := range []struct {
		args []string
		says string
	}{
		{[]string{"changes", "--since", "1999-01-01"}, "before the store's history, which starts with snapshot " + first},
		{[]string{"changes", "--since", "2026-13-99T000000Z"}, "the nearest snapshots are"},
		{[]string{"changes", "--table", "nosuch"}, `--table "nosuch" is not a table`},
		{[]string{"query", "--as-of", "1999-01-01", "SELECT 1"}, "whose first complete snapshot is snapshot " + first},
	} {
		code, _, stderr := e2etest.CLI(t, srv, append(bad.args, "--out", dir)...)
		if code != job.ExitUsage || !strings.Contains(stderr, bad.says) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", bad.args, code, stderr, bad.says)
		}
	}
}
