package ingest

import (
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
)

// A name sent twice in a record: an assumed field keeps its first value
// in its column and in _raw, which is written without the later member,
// and is counted; a contract field's is refused, naming it.
func TestANameSentTwiceKeepsTheFirstOrBreaksTheContract(t *testing.T) {
	t.Parallel()
	id := "6f1c9a7e-2b3d-4c5e-8f90-a1b2c3d4e5f6"
	customers, _ := catalog.TableNamed("customers")
	raw := `{"ID":"` + id + `","Email":"first@example.com","Note":1,"Email":"second@example.com","Note":2,"Fresh":true}`
	b := newRowBuilder(customers, nil)
	row, err := b.record(&extract.Record{ID: id, Raw: raw, Fields: extract.Members(raw, nil)})
	email := 1 + indexOfColumn(customers, "email")
	want := `{"ID":"` + id + `","Email":"first@example.com","Note":1,"Fresh":true}`
	if err != nil || row[email] != "first@example.com" || row[len(row)-1] != want {
		t.Fatalf("row %v, %v; want email first@example.com and _raw %s", row, err, want)
	}
	for _, f := range b.stats() {
		if wantTwice := map[string]int64{"Email": 1, "Note": 1}[f.Field]; f.Twice != wantTwice || (wantTwice > 0 && f.Example != id) {
			t.Errorf("field %s: twice %d (example %q), want %d", f.Field, f.Twice, f.Example, wantTwice)
		}
	}
	charges, _ := catalog.TableNamed("subscription_charges")
	raw = `{"ID":"` + id + `","Amount":12.5,"Amount":99}`
	_, err = newRowBuilder(charges, nil).record(&extract.Record{ID: id, Raw: raw, Fields: extract.Members(raw, nil)})
	if err == nil || err.Error() != "record "+id+", field Amount is sent twice in the record; the spec defines it, once" {
		t.Errorf("a contract field twice: %v", err)
	}
}
