//go:build heavy

package snapshot

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A publish whose views are those of the views' template binds none of
// them: the run's DuckDB file starts as the template, views included.
// The template is written once views are the same over two publishes: a
// store's second; and after the fields key adds a column, the publish
// makes its views anew, and the one after it the template.
func TestAPublishTakesItsViewsFromTheTemplate(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 34, Customers: 8}, "")
	cfg := testConfig(srv, t.TempDir())
	template := filepath.Join(cfg.Out, ".billsnap", "views.duckdb")
	takeN := func(n int) {
		t.Helper()
		for range n {
			if _, err := take(t, cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
	takeN(1)
	if _, err := os.Stat(template); !os.IsNotExist(err) {
		t.Errorf("a store's first publish wrote the template: %v", err)
	}
	takeN(1)
	marked := func(path string) bool {
		db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var marker string
		db.QueryRow("SELECT marker FROM customers").Scan(&marker)
		return marker == "template"
	}
	db, err := sql.Open("duckdb", template)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE OR REPLACE VIEW customers AS SELECT 'template' AS marker"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	takeN(1)
	if !marked(filepath.Join(cfg.Out, "billsnap.duckdb")) {
		t.Error("the read model's views were made anew though the template's are the ones it must have")
	}
	cfg.Fields = catalog.Mapping{"customers": {"culture": {Field: "Culture", Type: "string"}}}
	takeN(1)
	if marked(filepath.Join(cfg.Out, "billsnap.duckdb")) {
		t.Error("after the fields key added a column, the views were not made anew")
	}
	if n := count(t, readDB(t, cfg), "SELECT count(culture) FROM customers"); n != srv.AnswerKey().Tables["customers"].Count {
		t.Errorf("%d cultures in the view of every snapshot", n)
	}
	takeN(1)
	if marked(template) {
		t.Error("the template was not made anew once the views were the same over two publishes")
	}
}

// The read model's view of every snapshot reads a table's files by
// position while every snapshot kept has the same columns, and by name
// once the fields key has changed them: a column added later is NULL in
// the snapshots before it, and no row is lost. Once retention has left
// one set of columns, it reads by position again.
func TestTheViewOfEverySnapshotReadsByNameOnlyWhenColumnsDiffer(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 33, Customers: 12}, "")
	cfg := testConfig(srv, t.TempDir())
	customers := srv.AnswerKey().Tables["customers"].Count
	var ids []string
	for _, fields := range []catalog.Mapping{nil, nil, {"customers": {"culture": {Field: "Culture", Type: "string"}}}} {
		cfg.Fields = fields
		sum, err := take(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sum.ID)
		if len(ids) == 2 {
			checkByName(t, readDB(t, cfg), map[string]bool{"customers": false, "invoices": false})
		}
	}
	db := readDB(t, cfg)
	checkByName(t, db, map[string]bool{"customers": true, "invoices": false})
	var rows, before, after int
	q := `SELECT count(*), count(culture) FILTER (snapshot_id <> ?), count(culture) FILTER (snapshot_id = ?) FROM customers`
	if err := db.QueryRow(q, ids[2], ids[2]).Scan(&rows, &before, &after); err != nil {
		t.Fatal(err)
	}
	if rows != 3*customers || before != 0 || after != customers {
		t.Errorf("customers over three snapshots: %d rows, %d cultures before the column, %d after; want %d, 0, %d", rows, before, after, 3*customers, customers)
	}
	s := openStore(t, cfg)
	if _, err := s.Prune(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	checkByName(t, readDB(t, cfg), map[string]bool{"customers": false, "invoices": false})
}
