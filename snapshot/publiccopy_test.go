package snapshot

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// Reconcile reads the latest snapshot from a copy of the public file when
// it is the file the last publish showed (its latest_ tables, the copy
// removed once attached), and from the Parquet when a reader wrote the
// file since: the same rows either way, and nothing left behind.
func TestReconcileReadsACopyOfThePublishedModelOnlyWhenUnwritten(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 52, Customers: 10}, "")
	cfg := testConfig(srv, t.TempDir())
	if _, err := take(t, cfg); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, cfg)
	defer s.Close()
	for _, written := range []bool{false, true} {
		if written {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(cfg.Out, "billsnap.duckdb"), later, later); err != nil {
				t.Fatal(err)
			}
		}
		var log strings.Builder
		s.log = slog.New(slog.NewTextHandler(&log, nil))
		source, rows := boundSource(t, s)
		if want := "FROM model.latest_invoices"; strings.Contains(source, want) == written {
			t.Errorf("written %v: cur.invoices is %q", written, source)
		}
		if rows == 0 {
			t.Errorf("written %v: cur.invoices holds no row", written)
		}
		if written && !strings.Contains(log.String(), "written since it was published") {
			t.Errorf("the fallback is not logged: %s", log.String())
		}
		if left, _ := filepath.Glob(filepath.Join(cfg.Out, ".billsnap", readingCopies)); len(left) > 0 {
			t.Errorf("written %v: copies left: %v", written, left)
		}
	}
}

// boundSource binds a reading of s to its latest snapshot and returns the
// SQL of cur.invoices and how many rows it holds.
func boundSource(t *testing.T, s *Store) (string, int) {
	t.Helper()
	ctx := context.Background()
	r, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	conn, err := r.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var latest string
	if err := conn.QueryRowContext(ctx, "SELECT id FROM latest_snapshot").Scan(&latest); err != nil {
		t.Fatal(err)
	}
	if err := r.Bind(ctx, conn, latest, ""); err != nil {
		t.Fatal(err)
	}
	var sql string
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT sql FROM duckdb_views() WHERE database_name = 'cur' AND view_name = 'invoices'").Scan(&sql); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM cur.invoices").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return sql, n
}
