package snapshot

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot/modelfile"
	"github.com/billsnap/billsnap/snapshot/state"
)

// A store of an earlier billsnap — one DuckDB file with every snapshot's
// rows, the manifest, the runs, a Parquet tree with the old partition key —
// is migrated when opened: its latest complete snapshot becomes the read
// model, its incomplete snapshot the incomplete tree, its runs the
// journal, its manifest the state; the next export completes.
func TestAnOldStoreIsMigratedWhenOpened(t *testing.T) {
	t.Parallel()
	clean := sandboxtest.Start(t, sandbox.Options{Seed: 46, Customers: 40}, "")
	cfg := testConfig(clean, t.TempDir())
	first, err := take(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	drifting := sandboxtest.Start(t, sandbox.Options{Seed: 46, Customers: 40}, "totalcount=Contacts")
	cfgInc := cfg
	cfgInc.BaseURL, cfgInc.FrontURL = drifting.BaseURL(), drifting.FrontURL()
	inc, err := take(t, cfgInc)
	if err != nil || inc.Status != StatusIncomplete {
		t.Fatalf("%+v %v", inc, err)
	}
	makeOld(t, cfg)

	s := openStore(t, cfg)
	s.Close()
	db := readDB(t, cfg)
	key := clean.AnswerKey()
	for table, want := range key.Tables {
		var n int
		var h string
		q := fmt.Sprintf("SELECT count(*), coalesce(sha256(string_agg(id, chr(10) ORDER BY id) || chr(10)), sha256('')) FROM latest_%s", table)
		if err := db.QueryRow(q).Scan(&n, &h); err != nil || n != want.Count || h != want.IDsSHA256 {
			t.Errorf("latest_%s after the migration: %d rows, %v", table, n, err)
		}
	}
	if n := count(t, db, "SELECT count(*) FROM incomplete_customers WHERE snapshot_id = ?", inc.ID); n != key.Tables["customers"].Count {
		t.Errorf("the incomplete snapshot's customers: %d", n)
	}
	if got := statuses(t, db); len(got) != 2 || got[0] != StatusComplete || got[1] != StatusIncomplete {
		t.Errorf("snapshots after the migration: %v", got)
	}
	if n := count(t, db, "SELECT count(*) FROM customers WHERE snapshot_id = ?", first.ID); n != key.Tables["customers"].Count {
		t.Errorf("the history of customers: %d rows of the first snapshot", n)
	}
	runs, _ := journal.List(layout.Dir(cfg.Out).Runs(), time.Now())
	if len(runs) != 1 || runs[0].Job != "export" || runs[0].Status != journal.OK || runs[0].Snapshot != first.ID {
		t.Errorf("the old runs in the journal: %+v", runs)
	}
	if _, err := take(t, cfg); err != nil {
		t.Errorf("the export after the migration: %v", err)
	}
}

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
