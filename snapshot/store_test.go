package snapshot

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// fingerprint is what a reader sees of the output: every published Parquet
// file with the hash of its bytes, and the IDs hash of every latest_ view.
func fingerprint(t *testing.T, cfg testCfg) map[string]string {
	t.Helper()
	fp := map[string]string{}
	filepath.WalkDir(filepath.Join(cfg.Out, "parquet")+"/", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".parquet") {
			b, _ := os.ReadFile(path)
			sum := sha256.Sum256(b)
			rel, _ := filepath.Rel(cfg.Out, path)
			fp[rel] = hex.EncodeToString(sum[:])
		}
		return nil
	})
	// Its own handle, closed here: DuckDB gives a process that opens a
	// path it has open the file it has, not the one renamed over it.
	db, err := OpenRead(context.Background(), cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tb := range catalog.Tables() {
		var n int
		var h string
		q := "SELECT count(*), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256('')) FROM latest_" + tb.Name
		if err := db.QueryRow(q).Scan(&n, &h); err != nil {
			t.Fatal(err)
		}
		fp["latest_"+tb.Name] = h
	}
	return fp
}

func statuses(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT status FROM snapshots ORDER BY started, id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

func TestFailedRunLeavesThePreviousSnapshot(t *testing.T) {
	t.Parallel()
	clean := sandboxtest.Start(t, sandbox.Options{Seed: 31, Customers: 300}, "")
	cfg := testConfig(clean, t.TempDir())
	if _, err := take(t, cfg); err != nil {
		t.Fatal(err)
	}
	before := fingerprint(t, cfg)
	broken := sandboxtest.Start(t, sandbox.Options{Seed: 31, Customers: 300}, "loop=Invoices@6")
	cfg2 := cfg
	cfg2.BaseURL, cfg2.FrontURL = broken.BaseURL(), broken.FrontURL()
	_, err := take(t, cfg2)
	if err == nil || !strings.Contains(err.Error(), "collection invoices, page 6, GET "+broken.URL+"/Invoices/?page=6: NextPage "+broken.URL+"/Invoices/?page=5 loops back to page 5") {
		t.Fatalf("second run: %v", err)
	}
	if after := fingerprint(t, cfg); !mapsEqual(before, after) {
		t.Errorf("a failed run changed what readers see:\nbefore %v\nafter  %v", before, after)
	}
	s := openStore(t, cfg)
	defer s.Close()
	var msg string
	inState(t, s, func(db *sql.DB) {
		if got := statuses(t, db); !slices.Equal(got, []string{StatusComplete, StatusFailed}) {
			t.Errorf("statuses %v", got)
		}
		db.QueryRow("SELECT error FROM snapshots WHERE status = 'failed'").Scan(&msg)
	})
	if !strings.Contains(msg, "loops back to page 5") {
		t.Errorf("failed snapshot's error: %q", msg)
	}
	if n := count(t, readDB(t, cfg), "SELECT count(*) FROM invoices"); n != int(clean.AnswerKey().Tables["invoices"].Count) {
		t.Errorf("the failed run left %d invoice rows where readers look", n)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, ".staging")); !os.IsNotExist(err) {
		t.Errorf("staging left behind: %v", err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// An incomplete snapshot changes neither latest_ nor the tree of complete
// snapshots; it is kept for inspection in its own tree, which the
// incomplete_ views read.
func TestIncompleteSnapshotIsKeptButNotPublished(t *testing.T) {
	t.Parallel()
	clean := sandboxtest.Start(t, sandbox.Options{Seed: 32, Customers: 150}, "")
	cfg := testConfig(clean, t.TempDir())
	first, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := fingerprint(t, cfg)
	drifting := sandboxtest.Start(t, sandbox.Options{Seed: 32, Customers: 150}, "totalcount=Contacts")
	cfg2 := cfg
	cfg2.BaseURL, cfg2.FrontURL = drifting.BaseURL(), drifting.FrontURL()
	sum, err := take(t, cfg2)
	if err != nil || sum.Status != StatusIncomplete {
		t.Fatalf("%+v, %v", sum, err)
	}
	if after := fingerprint(t, cfg); !mapsEqual(before, after) {
		t.Error("an incomplete snapshot changed what readers see")
	}
	db := readDB(t, cfg)
	var complete bool
	var problem string
	db.QueryRow("SELECT complete, problem FROM snapshot_tables WHERE snapshot_id = ? AND table_name = 'contacts'", sum.ID).Scan(&complete, &problem)
	if complete || !strings.Contains(problem, "TotalCount says") {
		t.Errorf("contacts of the incomplete snapshot: complete %v, problem %q", complete, problem)
	}
	if n := count(t, db, "SELECT count(*) FROM incomplete_customers WHERE snapshot_id = ?", sum.ID); n != clean.AnswerKey().Tables["customers"].Count {
		t.Errorf("the incomplete snapshot has %d customers in incomplete_customers", n)
	}
	if n := count(t, db, "SELECT count(*) FROM customers WHERE snapshot_id = ?", sum.ID); n != 0 {
		t.Errorf("the incomplete snapshot has %d customers among the complete ones", n)
	}
	if n := count(t, db, "SELECT count(*) FROM latest_snapshot WHERE id = ?", first.ID); n != 1 {
		t.Error("latest is not the first snapshot")
	}
}

// A record listed twice on every walk (it moves while the list is paged)
// leaves the collection incomplete; DuckDB keeps each record as it was
// first listed (the last walk left the repeat out), and has no row of the
// record that was never listed.
func TestAnIDListedTwiceOnEveryWalkIsKeptOnce(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 33, Customers: 150}, "move=Customers@1/0")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil || sum.Status != StatusIncomplete {
		t.Fatalf("%+v, %v", sum, err)
	}
	db := readDB(t, cfg)
	var problem string
	var walks, received, distinct int
	q := "SELECT problem, walks, records_received, distinct_ids FROM snapshot_tables WHERE snapshot_id = ? AND table_name = 'customers'"
	if err := db.QueryRow(q, sum.ID).Scan(&problem, &walks, &received, &distinct); err != nil {
		t.Fatal(err)
	}
	want := srv.AnswerKey().Tables["customers"].Count
	if !strings.Contains(problem, "arrived twice") || walks != cfg.MaxRewalks+1 || received != want || distinct != want-1 {
		t.Errorf("customers: problem %q, %d walks, %d received, %d distinct; want %d received", problem, walks, received, distinct, want)
	}
	rows := count(t, db, "SELECT count(*) FROM incomplete_customers WHERE snapshot_id = ?", sum.ID)
	ids := count(t, db, "SELECT count(DISTINCT id) FROM incomplete_customers WHERE snapshot_id = ?", sum.ID)
	if rows != want-1 || ids != want-1 {
		t.Errorf("the incomplete tree holds %d rows, %d distinct IDs of the customers; want %d of each", rows, ids, want-1)
	}
	if n := count(t, db, "SELECT count(*) FROM latest_snapshot"); n != 0 {
		t.Error("an incomplete snapshot is latest")
	}
}
