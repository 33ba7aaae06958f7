//go:build heavy

package snapshot

import (
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every sql block of docs/history.md runs as written against a store
// with history: the read model's queries on its read model, the one
// without billsnap on a DuckDB of its own, its DIR and LATEST the store's.
func TestHistoryDocQueriesRun(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/history.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 7 {
		t.Fatalf("docs/history.md has %d sql blocks; want the seven queries and the files' one", len(blocks))
	}
	f := newHistoryFixture(t)
	takeAt(t, f.cfg, f.clock)
	p := f.sb.Dataset().Plans[0].ProductPlanChargePricings[0]
	if err := f.sb.Change("ProductPlans", f.sb.Dataset().Plans[0].ID, func(any) { p.UnitPrice += 100 }); err != nil {
		t.Fatal(err)
	}
	if err := f.sb.Remove("Customers", customerAt(t, f.sb, 3).ID); err != nil {
		t.Fatal(err)
	}
	latest := takeAt(t, f.cfg, f.clock).ID
	db := readDB(t, f.cfg)
	for _, b := range blocks {
		q := b[1]
		if strings.HasPrefix(q, "-- duckdb, without the read model") {
			q = strings.NewReplacer("DIR", f.cfg.Out, "LATEST", latest).Replace(q)
			plain, err := sql.Open("duckdb", "")
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			if n := rowCount(t, plain, q); n == 0 {
				t.Errorf("the query without billsnap gives no row:\n%s", q)
			}
			continue
		}
		n := rowCount(t, db, q)
		if !strings.Contains(q, "now()") && n == 0 {
			t.Errorf("docs/history.md's query gives no row:\n%s", q)
		}
	}
	if _, err := os.Stat(filepath.Join(f.cfg.Out, "records", "versions", "customers")); err != nil {
		t.Errorf("the doc's folder of versions: %v", err)
	}
	var price int
	db.QueryRow(`SELECT count(*) FROM changes WHERE "table" = 'product_plan_charge_pricings' AND list_contains(fields, 'UnitPrice')`).Scan(&price)
	if price != 1 {
		t.Errorf("%d price changes, want 1", price)
	}
}
