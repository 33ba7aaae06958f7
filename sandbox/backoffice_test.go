package sandbox

import (
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
