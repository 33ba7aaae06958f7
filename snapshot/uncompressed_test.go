package snapshot

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/internal/fileutil"
)

// The read model's latest_ tables hold no _raw (the Parquet has it: a
// copy in DuckDB doubled the store), and store id uncompressed when
// duckdb.fsst is off (its default), so that DuckDB does not analyse it
// for a dictionary in every row group it loads: rows sharing their id,
// added to a copy of the shared store's model, are written uncompressed
// there, while snapshot_id, which they share too, is compressed.
func TestTheReadModelStoresIDUncompressedAndNoRaw(t *testing.T) {
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
	var raws int
	if err := db.QueryRow(`SELECT count(*) FROM duckdb_columns() WHERE table_name LIKE 'latest\_%' ESCAPE '\' AND column_name = '_raw'`).Scan(&raws); err != nil || raws != 0 {
		t.Errorf("latest_ tables with _raw: %d (%v)", raws, err)
	}
	for _, q := range []string{
		`INSERT INTO latest_customers (snapshot_id, id) SELECT 'same', 'same' FROM range(50000)`,
		"CHECKPOINT",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for col, uncompressed := range map[string]bool{"id": true, "snapshot_id": false} {
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
