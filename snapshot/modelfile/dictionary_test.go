package modelfile_test

import (
	"context"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/modelfile"
)

// The dictionary is in the views' key: a description or a code's label
// that changes makes the views anew, as a statement that changes does.
func TestTheDictionaryIsInTheViewsKey(t *testing.T) {
	t.Parallel()
	db, ctx := stateDB(t), context.Background()
	key := func(edit func(tables []catalog.Table)) string {
		t.Helper()
		tables := catalog.Tables()
		edit(tables)
		k, err := modelfile.Model{Tables: tables, RecordsLink: "/records"}.ViewsKey(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	charges := func(tables []catalog.Table) *catalog.Table {
		for i := range tables {
			if tables[i].Name == "subscription_charges" {
				return &tables[i]
			}
		}
		panic("no subscription_charges")
	}
	base := key(func([]catalog.Table) {})
	if again := key(func([]catalog.Table) {}); again != base {
		t.Fatalf("the key of the same views changed: %s, %s", base, again)
	}
	described := key(func(tables []catalog.Table) { charges(tables).Columns[0].Description += " (edited)" })
	relabelled := key(func(tables []catalog.Table) {
		c := &charges(tables).Columns[len(charges(tables).Columns)-1]
		c.Codes[0].Label = "edited"
	})
	if described == base || relabelled == base || described == relabelled {
		t.Errorf("keys: base %s, a description edited %s, a label edited %s", base, described, relabelled)
	}
}
