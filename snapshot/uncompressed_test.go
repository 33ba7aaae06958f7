package snapshot

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/internal/fileutil"
)

// The read model's latest_ tables store id and _raw uncompressed when
// duckdb.fsst is off (its default), so that DuckDB does not analyse them
// for a dictionary in every row group it loads: rows sharing their id and
// _raw, added to a copy of the shared store's model, are written
// uncompressed there, while snapshot_id, which they share too, is
// compressed.
func TestTheReadModelStoresIDAndRawUncompressed(t *testing.T) {
	t.Parallel()
	cfg, _, _ := publishedStore(t)
	path := filepath.Join(t.TempDir(), "model.duckdb")
	if err := fileutil.CopyFile(filepath.Join(cfg.Out, cfg.DuckDB.File), path, false); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`INSERT INTO latest_customers (snapshot_id, id, _raw) SELECT 'same', 'same', '{"ID":"same"}' FROM range(50000)`,
		"CHECKPOINT",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for col, uncompressed := range map[string]bool{"id": true, "_raw": true, "snapshot_id": false} {
		var compressed int
		q := fmt.Sprintf(`SELECT count(*) FILTER (WHERE compression <> 'Uncompressed') FROM pragma_storage_info('latest_customers')
			WHERE column_name = '%s' AND segment_type <> 'VALIDITY'`, col)
		if err := db.QueryRow(q).Scan(&compressed); err != nil {
			t.Fatal(err)
		}
		if (compressed == 0) != uncompressed {
			t.Errorf("latest_customers.%s: %d segments compressed, want uncompressed %v", col, compressed, uncompressed)
		}
	}
}
