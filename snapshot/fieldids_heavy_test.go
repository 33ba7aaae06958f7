//go:build heavy

package snapshot

import (
	"slices"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// Every Parquet file of a snapshot carries field IDs, read by DuckDB
// (which shares no code with the writer): 1…N in Parquet order for the
// columns a table starts with, equal to the catalogue's. A column the
// fields key adds gets the next ID; the same name with another kind gets
// a new one; an ID is never given to another column; earlier snapshots'
// files keep theirs.
func TestEveryParquetFileCarriesItsTablesFieldIDs(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 31, Customers: 12}, "")
	cfg := testConfig(srv, t.TempDir())
	steps := []struct {
		fields catalog.Mapping
		want   []string // customers' columns after id…created: name=ID
	}{
		{nil, []string{"_raw=7"}},
		{catalog.Mapping{"customers": {"culture": {Field: "Culture", Type: "string"}}}, []string{"culture=8", "_raw=7"}},
		{catalog.Mapping{"customers": {"culture": {Field: "Culture", Type: "bigint"}}}, []string{"culture=9", "_raw=7"}},
		{catalog.Mapping{"customers": {"region": {Field: "Region", Type: "string"}}}, []string{"region=10", "_raw=7"}},
		{catalog.Mapping{"customers": {"culture": {Field: "Culture", Type: "string"}}}, []string{"culture=8", "_raw=7"}},
	}
	db := duckDB(t)
	var ids []string
	for i, step := range steps {
		cfg.Fields = step.fields
		sum, err := take(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sum.ID)
		got := fileFieldIDs(t, db, cfg, sum.ID, "customers")
		want := append([]string{"id=1", "full_name=2", "company_name=3", "currency_code=4", "email=5", "created=6"}, step.want...)
		if !slices.Equal(got, want) {
			t.Errorf("step %d: customers' files carry %v, want %v", i, got, want)
		}
		checkOtherTables(t, db, cfg, sum.ID)
	}
	if got := fileFieldIDs(t, db, cfg, ids[1], "customers"); got[6] != "culture=8" {
		t.Errorf("the second snapshot's files now carry %v", got)
	}
	var catalogue string
	q := "SELECT string_agg(column_name || '=' || field_id || ':' || kind, ' ' ORDER BY field_id) FROM field_ids WHERE table_name = 'customers' AND field_id > 6"
	if err := readDB(t, cfg).QueryRow(q).Scan(&catalogue); err != nil || catalogue != "_raw=7:json culture=8:string culture=9:bigint region=10:string" {
		t.Errorf("the read model's field_ids of customers after created: %q (%v)", catalogue, err)
	}
}
