package snapshot

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
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
