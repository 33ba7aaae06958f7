package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
)

// Parts of 1,000 rows are loaded into DuckDB while the walk goes on; a
// re-walk after some were loaded drops them, rows and files.
func TestTakeEqualsTheAnswerKey(t *testing.T) {
	for _, tc := range []struct{ faults, rewalked string }{
		{"", ""},
		{"insert=SubscriptionCharges@15", "subscription_charges"},
		{"delete=Invoices@9", "invoice_lines"},
	} {
		t.Run(tc.faults, func(t *testing.T) { takeEqualsTheKey(t, tc.faults, tc.rewalked) })
	}
}

func takeEqualsTheKey(t *testing.T, faults, rewalked string) {
	srv := startSandbox(t, sandbox.Options{Seed: 21, Customers: 250, Planted: 1}, faults)
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != StatusComplete || len(sum.Tables) != 15 {
		t.Fatalf("summary %+v", sum)
	}
	key := srv.AnswerKey()
	for _, st := range sum.Tables {
		want := key.Tables[st.Table]
		if st.IDsSHA256 != want.IDsSHA256 || st.DuckDBRows != int64(want.Count) || st.ParquetRows != int64(want.Count) {
			t.Errorf("%s: %+v, answer key %+v", st.Table, st, want)
		}
		if st.Table == rewalked && (st.Walks != 2 || want.Count < 2*cfg.Parquet.RowsPerFile) {
			t.Errorf("%s was walked %d times, %d rows: the case does not re-walk after a part was loaded", st.Table, st.Walks, want.Count)
		}
	}
	s := openStore(t, cfg)
	defer s.Close()
	for table, want := range key.Tables {
		for _, from := range []string{"latest_" + table, fmt.Sprintf("read_parquet('%s')", filepath.Join(cfg.Out, "parquet", table, "snapshot="+sum.ID, "*.parquet"))} {
			var n int
			var h string
			q := fmt.Sprintf("SELECT count(*), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256('')) FROM %s", from)
			if err := s.DB().QueryRow(q).Scan(&n, &h); err != nil || n != want.Count || h != want.IDsSHA256 {
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
	srv := startSandbox(t, sandbox.Options{Seed: 22, Customers: 40}, "")
	cfg := testConfig(srv, t.TempDir())
	sum, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, cfg)
	defer s.Close()
	got, err := s.Manifest(context.Background(), sum.ID)
	if err != nil || len(got) != len(sum.Tables) {
		t.Fatalf("%d tables, %v", len(got), err)
	}
	for i := range got {
		if got[i] != sum.Tables[i] {
			t.Errorf("manifest %+v\npublished %+v", got[i], sum.Tables[i])
		}
	}
}

// Loads run under duckdb.load_memory_limit, queries under memory_limit:
// a load limit DuckDB cannot take fails the snapshot naming the key, and after a
// snapshot the query limit is back.
func TestLoadMemoryLimit(t *testing.T) {
	srv := startSandbox(t, sandbox.Options{Seed: 3, Customers: 20}, "")
	cfg := testConfig(srv, t.TempDir())
	cfg.DuckDB.MemoryLimit = "100MB"
	limit := func(s *Store) (v string) {
		if err := s.DB().QueryRow("SELECT current_setting('memory_limit')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	s := openStore(t, cfg)
	before := limit(s)
	if _, err := s.Take(context.Background(), walker(t, cfg), catalog(t, cfg)); err != nil {
		t.Fatal(err)
	}
	if after := limit(s); after != before {
		t.Errorf("memory_limit after a snapshot is %s, not %s", after, before)
	}
	s.Close()

	cfg.DuckDB.LoadMemoryLimit = "1KB"
	s = openStore(t, cfg)
	defer s.Close()
	_, err := s.Take(context.Background(), walker(t, cfg), catalog(t, cfg))
	if err == nil || !strings.Contains(err.Error(), "config key duckdb.load_memory_limit") {
		t.Errorf("a 1KB load limit: %v", err)
	}
	if after := limit(s); after != before {
		t.Errorf("memory_limit after a failed snapshot is %s, not %s", after, before)
	}
}
