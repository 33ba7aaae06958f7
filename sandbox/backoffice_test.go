package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBackOfficeChangesAreServed(t *testing.T) {
	srv := start(t, Options{Seed: 3, Customers: 30}, "")
	inv := srv.Dataset().Invoices[0]
	if err := srv.Change("Invoices", inv.ID, func(r any) { r.(*Invoice).TotalAmount += 100 }); err != nil {
		t.Fatal(err)
	}
	want := (inv.TotalAmount).String()
	body := string(srv.do(t, call{path: "/Invoices/"}).body)
	if !strings.Contains(body, `"TotalAmount":`+want) {
		t.Errorf("the changed total %s is not served", want)
	}
	before := srv.AnswerKey().Tables["invoices"].Count
	if err := srv.Remove("Invoices", inv.ID); err != nil {
		t.Fatal(err)
	}
	if srv.AnswerKey().Tables["invoices"].Count != before-1 || strings.Contains(string(srv.do(t, call{path: "/Invoices/"}).body), inv.ID) {
		t.Error("the removed invoice is still served")
	}
	if srv.Change("Invoices", inv.ID, func(any) {}) == nil || srv.Remove("Widgets", "x") == nil {
		t.Error("changing what does not exist is not an error")
	}
}

// An inserted record is served at the end of its list, counted by the
// answer key, and can be found, changed and removed like any other; the same
// inserts on sandboxes of the same options make the same IDs.
func TestBackOfficeInsertsAreServed(t *testing.T) {
	srv := start(t, Options{Seed: 3, Customers: 5}, "")
	twin := New(Config{Data: Options{Seed: 3, Customers: 5}})
	for _, name := range ListNames() {
		table := TableOf(name)
		before := srv.AnswerKey().Tables[table].Count
		first, _ := srv.Served(name)
		if err := srv.Change(name, first[0].ID, func(any) {}); err != nil { // the list's index is built
			t.Fatal(err)
		}
		id, err := srv.Insert(name)
		if err != nil {
			t.Fatal(err)
		}
		if twinID, _ := twin.Insert(name); twinID != id {
			t.Errorf("%s: the twin inserted %s, the sandbox %s", name, twinID, id)
		}
		recs, _ := srv.Served(name)
		if srv.AnswerKey().Tables[table].Count != before+1 || recs[len(recs)-1].ID != id {
			t.Errorf("%s: the inserted %s is not served last", name, id)
		}
		if err := srv.Change(name, id, func(any) {}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := srv.Remove(name, id); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := srv.Insert("Widgets"); err == nil {
		t.Error("an insert into no list is not an error")
	}
}

// Served gives each list's records with the bytes a client walking the
// export's path receives for them: the front lists' items, and product
// plans as the /v3 query sends them with both nested lists expanded.
func TestServedIsWhatTheExportReceives(t *testing.T) {
	srv := start(t, Options{Seed: 3, Customers: 40, Planted: 1}, "")
	for _, name := range ListNames() {
		path := "/" + name + "/"
		if name == "ProductPlans" {
			path = "/v3/productplans/query?$expand=ProductPlanCharges,ProductPlanChargePricings"
		}
		got := itemsOf(t, srv, path)
		recs, err := srv.Served(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != len(got) || len(recs) == 0 {
			t.Fatalf("%s: served %d records, the list sends %d", name, len(recs), len(got))
		}
		for i, r := range recs {
			if string(r.JSON) != string(got[i]) || !strings.Contains(string(r.JSON), `"`+r.ID+`"`) {
				t.Fatalf("%s record %d: Served %s %.200s, the list sends %.200s", name, i, r.ID, r.JSON, got[i])
			}
		}
	}
	if _, err := srv.Served("Widgets"); err == nil || TableOf("Widgets") != "" || TableOf("invoices") != "invoices" {
		t.Error("Served or TableOf of no list")
	}
}

// itemsOf is every item of the list at path, as the bytes the pages send.
func itemsOf(t *testing.T, srv *Server, path string) []json.RawMessage {
	t.Helper()
	var items []json.RawMessage
	for next := srv.URL + path; next != ""; {
		var p struct {
			Items  []json.RawMessage
			Paging Paging
		}
		r := srv.do(t, call{path: next})
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatalf("%s: %v: %.200s", next, err, r.body)
		}
		items, next = append(items, p.Items...), ""
		if p.Paging.NextPage != nil {
			next = *p.Paging.NextPage
		}
	}
	return items
}
