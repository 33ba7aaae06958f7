package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Parts are loaded into DuckDB while the walk goes on; a re-walk after
// some were loaded drops them, rows and files. A snapshot of the
// unchanged service equals the answer key too: the shared published
// store's (publishedStore), read only.
func TestTakeEqualsTheAnswerKey(t *testing.T) {
	t.Parallel()
	cfg, sum, key := publishedStore(t)
	checkTakeEqualsTheKey(t, cfg, sum, key, "")
	for _, tc := range []struct{ faults, rewalked string }{
		{"insert=SubscriptionCharges@15", "subscription_charges"},
		{"delete=Invoices@5", "invoice_lines"},
		// TotalCount stays: only DuckDB's tally of the loaded IDs sees
		// the record listed twice, after parts were loaded.
		{"move=SubscriptionCharges@15", "subscription_charges"},
	} {
		t.Run(tc.faults, func(t *testing.T) { takeEqualsTheKey(t, tc.faults, tc.rewalked) })
	}
}

// takeEqualsTheKey takes a snapshot of a service whose lists drift as
// faults says, in parts of 500 rows, and checks it equals the answer
// key, rewalked walked twice after a part of it was loaded.
func takeEqualsTheKey(t *testing.T, faults, rewalked string) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 21, Customers: 120, Planted: 1}, faults)
	cfg := testConfig(srv, t.TempDir())
	cfg.Parquet.RowsPerFile = 500
	// Pages one by one, so that the pages after the drifting one are
	// served after it drifted: with pages fetched ahead, a busy machine
	// could serve them all before, and the walk then equals the state
	// before the drift (right, but no re-walk to test). Drift with
	// prefetch is TestDriftSoak's (heavy), against every state.
	cfg.Prefetch = 0
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkTakeEqualsTheKey(t, cfg, sum, srv.AnswerKey(), rewalked)
}

// checkTakeEqualsTheKey checks that sum, a snapshot taken into cfg.Out,
// its DuckDB tables and its Parquet equal key, and that rewalked (if
// any) was walked twice after a part of it was loaded.
func checkTakeEqualsTheKey(t *testing.T, cfg testCfg, sum *Summary, key sandbox.AnswerKey, rewalked string) {
	t.Helper()
	if sum.Status != StatusComplete || len(sum.Tables) != 15 {
		t.Fatalf("summary %+v", sum)
	}
	for _, st := range sum.Tables {
		want := key.Tables[st.Table]
		if st.IDsSHA256 != want.IDsSHA256 || st.DuckDBRows != int64(want.Count) || st.ParquetRows != int64(want.Count) {
			t.Errorf("%s: %+v, answer key %+v", st.Table, st, want)
		}
		if st.Table == rewalked && (st.Walks != 2 || want.Count < 2*cfg.Parquet.RowsPerFile) {
			t.Errorf("%s was walked %d times, %d rows: the case does not re-walk after a part was loaded", st.Table, st.Walks, want.Count)
		}
	}
	db := readDB(t, cfg)
	for table, want := range key.Tables {
		for _, from := range []string{"latest_" + table, fmt.Sprintf("read_parquet('%s')", filepath.Join(cfg.Out, "parquet", table, "snapshot_id="+sum.ID, "*.parquet"))} {
			var n int
			var h string
			q := fmt.Sprintf("SELECT count(*), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256('')) FROM %s", from)
			if err := db.QueryRow(q).Scan(&n, &h); err != nil || n != want.Count || h != want.IDsSHA256 {
				t.Errorf("%s: %d rows, hash %s, err %v; want %+v", from, n, h, err, want)
			}
		}
	}
}

func count(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestManifestReadsWhatPublishWrote(t *testing.T) {
	t.Parallel()
	cfg, sum, _ := publishedStore(t)
	got, err := readmodel.Manifest(context.Background(), readDB(t, cfg), sum.ID)
	if err != nil || len(got) != len(sum.Tables) {
		t.Fatalf("%d tables, %v", len(got), err)
	}
	for i := range got {
		if got[i] != sum.Tables[i] {
			t.Errorf("manifest %+v\npublished %+v", got[i], sum.Tables[i])
		}
	}
}

// Loads run under duckdb.load_memory_limit: a load limit DuckDB cannot
// take fails the snapshot naming the key, and publishes nothing.
func TestLoadMemoryLimit(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 20}, "")
	cfg := testConfig(srv, t.TempDir())
	cfg.DuckDB.LoadMemoryLimit = "1KB"
	s := openStore(t, cfg)
	defer s.Close()
	_, err := takeWith(t, s, cfg)
	if err == nil || !strings.Contains(err.Error(), "config key duckdb.load_memory_limit") {
		t.Errorf("a 1KB load limit: %v", err)
	}
	checkNothingPublished(t, cfg)
}

// checkNothingPublished fails t if cfg.Out holds a Parquet file or a
// latest_ view shows a row.
func checkNothingPublished(t *testing.T, cfg testCfg) {
	t.Helper()
	for k, v := range fingerprint(t, cfg) {
		if strings.HasSuffix(k, ".parquet") || v != emptySHA256 {
			t.Errorf("published after a failed snapshot: %s", k)
		}
	}
}

// emptySHA256 is the SHA-256 of nothing, in hex.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
