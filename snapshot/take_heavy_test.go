//go:build heavy

package snapshot

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A load that runs out of memory under duckdb.load_memory_limit is run
// again with the limit doubled, up to duckdb.memory_limit; past that the
// snapshot fails naming the key, and nothing is published.
func TestALoadOutOfMemoryRaisesTheLimit(t *testing.T) {
	t.Parallel()
	// (customers enough that a load needs more than 8MB: the latest_
	// tables hold no _raw)
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 1500}, "")
	for _, tc := range []struct{ ceiling, fails string }{{"256MB", ""}, {"8MB", "config key duckdb.memory_limit"}} {
		cfg := testConfig(srv, t.TempDir())
		cfg.Parquet.RowsPerFile = 1_000_000
		cfg.DuckDB.LoadMemoryLimit, cfg.DuckDB.MemoryLimit = "4MB", tc.ceiling
		var log strings.Builder
		s, err := Open(context.Background(), cfg.Options, slog.New(slog.NewTextHandler(&log, nil)), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := takeWith(t, s, cfg)
		s.Close()
		if !regexp.MustCompile(`DuckDB ran out of memory loading the snapshot; loading again with a higher memory limit" loading="[^"]+" memory_limit=8MB`).MatchString(log.String()) {
			t.Errorf("ceiling %s: the log does not say the limit was raised:\n%s", tc.ceiling, log.String())
		}
		if tc.fails != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fails) || !strings.Contains(err.Error(), "Out of Memory") {
				t.Errorf("ceiling %s: %v, want an error naming %s", tc.ceiling, err, tc.fails)
			}
			checkNothingPublished(t, cfg)
			continue
		}
		if err != nil || sum.Status != StatusComplete {
			t.Fatalf("ceiling %s: %v", tc.ceiling, err)
		}
		for _, st := range sum.Tables {
			if want := srv.AnswerKey().Tables[st.Table]; st.IDsSHA256 != want.IDsSHA256 || st.DuckDBRows != int64(want.Count) {
				t.Errorf("%s: %d rows, want %d", st.Table, st.DuckDBRows, want.Count)
			}
		}
	}
}
