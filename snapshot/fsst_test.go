//go:build heavy

package snapshot

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// The read model's strings are loaded without FSST unless duckdb.fsst
// asks for it: DuckDB's FSST analysis of every string column is most of
// the load's CPU.
func TestTheReadModelsStringsAreCompressedWithFSSTOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 21, Customers: 60}, "")
	for _, fsst := range []bool{false, true} {
		cfg := testConfig(srv, filepath.Join(t.TempDir(), "store"))
		cfg.DuckDB.FSST = fsst
		if _, err := take(t, cfg); err != nil {
			t.Fatal(err)
		}
		segments := 0
		for _, table := range []string{"customers", "invoices", "invoice_lines", "subscription_charges", "transactions"} {
			var n int
			err := readDB(t, cfg).QueryRow(fmt.Sprintf(`SELECT count(*) FROM pragma_storage_info('latest_%s') WHERE compression = 'FSST'`, table)).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			segments += n
		}
		if (segments > 0) != fsst {
			t.Errorf("duckdb.fsst %v: %d segments of the read model's tables compressed with FSST", fsst, segments)
		}
	}
}
