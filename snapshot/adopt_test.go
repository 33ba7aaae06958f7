package snapshot

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/modelfile"
	"github.com/billsnap/billsnap/snapshot/state"
)

// makeOld turns the store at cfg.Out into what billsnap wrote before the
// read model was split from its state: one DuckDB file holding every
// snapshot's rows (complete ones from the Parquet tree, incomplete ones
// from theirs), the state's tables, a runs table, schema version 1; the
// Parquet tree a plain directory with the partition key "snapshot".
func makeOld(t *testing.T, cfg testCfg) {
	t.Helper()
	pub := filepath.Join(cfg.Out, "billsnap.duckdb")
	path := pub + ".old"
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(fmt.Sprintf("ATTACH %s AS st (READ_ONLY)", state.SQLString(filepath.Join(cfg.Out, ".billsnap", "state.duckdb"))))
	for _, table := range []string{"billsnap_meta", "snapshots", "snapshot_tables", "snapshot_fields"} {
		exec(fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM st.%s", table, table))
	}
	exec("DETACH st")
	exec("UPDATE billsnap_meta SET value = '1' WHERE key = 'schema_version'")
	var firstID string
	db.QueryRow("SELECT id FROM snapshots WHERE status = 'complete'").Scan(&firstID)
	for _, tb := range catalog.Tables() {
		exec(tb.CreateSQL(tb.Name)) // the old store's tables held _raw too
		exec("ALTER TABLE " + tb.Name + " ADD COLUMN _raw JSON")
		for _, tree := range []string{"parquet", "incomplete"} {
			glob := filepath.Join(cfg.Out, tree, tb.Name, "*", "*.parquet")
			exec(fmt.Sprintf("INSERT INTO %s BY NAME %s", tb.Name, modelfile.ParquetRelation(glob)))
		}
	}
	exec(`CREATE TABLE runs (id VARCHAR PRIMARY KEY, started TIMESTAMPTZ NOT NULL, finished TIMESTAMPTZ, job VARCHAR NOT NULL,
		schedule VARCHAR NOT NULL, period VARCHAR NOT NULL, status VARCHAR NOT NULL, error VARCHAR, snapshot_id VARCHAR,
		exit_code INTEGER, pid INTEGER NOT NULL)`)
	exec("INSERT INTO runs VALUES ('r1', now(), now(), 'export', '', '', 'ok', NULL, ?, 0, 1)", firstID)
	db.Close()
	for _, p := range []string{".billsnap", "incomplete", ".incomplete-gen"} {
		os.RemoveAll(filepath.Join(cfg.Out, p))
	}
	if err := os.Rename(path, pub); err != nil {
		t.Fatal(err)
	}
	plainTree(t, cfg.Out)
}

// plainTree makes DIR/parquet what billsnap wrote before generations: a
// plain directory of partition directories named with the old key
// ("snapshot"), their files hard links of the tree's.
func plainTree(t *testing.T, out string) {
	t.Helper()
	link := filepath.Join(out, "parquet")
	plain := link + ".plain"
	files, _ := filepath.Glob(filepath.Join(link, "*", "snapshot_id=*", "*"))
	for _, f := range files {
		part := filepath.Dir(f)
		id := filepath.Base(part)[len("snapshot_id="):]
		to := filepath.Join(plain, filepath.Base(filepath.Dir(part)), "snapshot="+id, filepath.Base(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(f, to); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{link, filepath.Join(out, ".parquet-gen")} {
		os.RemoveAll(p)
	}
	if err := os.Rename(plain, link); err != nil {
		t.Fatal(err)
	}
}
