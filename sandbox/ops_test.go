package sandbox

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func chargesOf(t *testing.T, srv *Server, sub string) []map[string]any {
	t.Helper()
	return srv.do(t, call{path: "/v3/subscriptioncharges/query?$filter=" + url.QueryEscape("SubscriptionID eq guid'"+sub+"'")}).page(t).Items
}

func TestSetAmountUpdatesTheActiveCharge(t *testing.T) {
	srv := start(t, Options{Seed: 6, Customers: 40}, "")
	var ref, sub string
	for _, c := range srv.Dataset().Charges {
		if c.Status == StatusCharged {
			ref, sub = c.ReferenceID, c.SubscriptionID
			break
		}
	}
	r := srv.do(t, call{method: "PUT", path: "/v3/subscriptioncharges/" + ref + "/setamountbyreferenceid", body: `{"quantity": 17}`})
	if r.status != http.StatusOK {
		t.Fatalf("set amount: %d %s", r.status, r.body)
	}
	active, charged := 0, 0
	for _, c := range chargesOf(t, srv, sub) {
		if c["ReferenceID"] != ref {
			continue
		}
		switch c["Status"].(float64) {
		case StatusActive:
			active++
			if c["Amount"].(float64) != 17 {
				t.Errorf("active charge Amount %v, want 17", c["Amount"])
			}
		case StatusCharged:
			charged++
			if c["Amount"].(float64) == 17 {
				t.Errorf("a charged charge was changed")
			}
		}
	}
	if active != 1 || charged == 0 {
		t.Errorf("reference has %d active and %d charged charges", active, charged)
	}
}

func TestSetAmountErrors(t *testing.T) {
	srv := start(t, Options{Seed: 6, Customers: 60}, "")
	ref, cancelledRef := srv.Dataset().Charges[0].ReferenceID, ""
	for _, s := range srv.Dataset().Subscriptions {
		if s.State == StateCancelled {
			for _, c := range srv.Dataset().Charges {
				if c.SubscriptionID == s.ID {
					cancelledRef = c.ReferenceID
				}
			}
			break
		}
	}
	path := func(r string) string { return "/v3/subscriptioncharges/" + r + "/setamountbyreferenceid" }
	for _, tc := range []struct {
		ref, body    string
		status, code int
		msg          string
	}{
		{ref, `{}`, 400, 72000, "quantity"},
		{ref, `{"quantity": -1}`, 400, 72000, "quantity"},
		{ref, `{"quantity": 2.5}`, 400, 72000, "quantity"},
		{ref, `{"quantity": "2"}`, 400, 72000, "quantity"},
		{ref, `{"quantity": null}`, 400, 72000, "quantity"},
		{ref, `[1]`, 400, 72000, "JSON object"},
		{ref, `not json`, 400, 72000, "JSON object"},
		{"0e7a1f3c-9d5b-4c1a-8f2e-6b3d4a5c6d7e", `{"quantity": 1}`, 404, 74000, "0e7a1f3c-9d5b-4c1a-8f2e-6b3d4a5c6d7e"},
		{"not-a-guid", `{"quantity": 1}`, 400, 73000, "not-a-guid"},
		{cancelledRef, `{"quantity": 1}`, 422, 75000, "no active"},
	} {
		srv.wantError(t, srv.do(t, call{method: "PUT", path: path(tc.ref), body: tc.body}), tc.status, tc.code, tc.msg)
	}
	if r := srv.do(t, call{method: "PUT", path: path(ref), body: `{"Quantity": 0}`}); r.status != http.StatusOK {
		t.Errorf("quantity 0 (field name in another case): %d %s", r.status, r.body)
	}
}

func TestCreateCustomer(t *testing.T) {
	srv := start(t, Options{Seed: 6, Customers: 20}, "")
	for _, tc := range []struct {
		body, field string
	}{
		{`{"CompanyName": "Acme"}`, "FullName"},
		{`{"FullName": ""}`, "FullName"},
		{`{"FullName": 7}`, "FullName"},
		{`{"FullName": "Ann", "CurrencyCode": "US"}`, "CurrencyCode"},
		{`{"FullName": "Ann", "CurrencyCode": "usd"}`, "CurrencyCode"},
		{`{"FullName": "Ann", "CurrencyCode": 840}`, "CurrencyCode"},
		{`{"FullName": "Ann", "CompanyName": 1}`, "CompanyName"},
	} {
		r := srv.do(t, call{method: "POST", path: "/v3/customers", body: tc.body})
		srv.wantError(t, r, 400, 22000, tc.field)
		if e := r.apiError(t); !strings.HasSuffix(e.Helplink, "/22000/"+tc.field+"/") {
			t.Errorf("Helplink %q lacks the field segment", e.Helplink)
		}
	}
	before := srv.do(t, call{path: "/Customers/"}).page(t).Paging.TotalCount
	r := srv.do(t, call{method: "POST", path: "/v3/customers", body: `{"FullName": "Ann Example", "CompanyName": "Acme", "CurrencyCode": "DKK"}`})
	if r.status != http.StatusCreated || !strings.Contains(string(r.body), `"FullName":"Ann Example"`) {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if after := srv.do(t, call{path: "/Customers/"}).page(t).Paging.TotalCount; after != before+1 {
		t.Errorf("TotalCount %d after create, want %d", after, before+1)
	}
}

func TestMarkPaid(t *testing.T) {
	srv := start(t, Options{Seed: 6, Customers: 60}, "")
	var open, paid *Invoice
	for _, inv := range srv.Dataset().Invoices {
		if inv.PaymentDate == nil && open == nil {
			open = inv
		}
		if inv.PaymentDate != nil && paid == nil {
			paid = inv
		}
	}
	path := func(id string) string { return "/v3/invoices/" + id + "/markpaid/" }
	body := `{"PaymentDate": "2026-11-02T10:00:00Z"}`
	if r := srv.do(t, call{method: "PUT", path: path(open.ID), body: body}); r.status != 200 || !strings.Contains(string(r.body), `"PaymentDate":"2026-11-02T10:00:00Z"`) {
		t.Fatalf("mark paid: %d %s", r.status, r.body)
	}
	for _, id := range []string{open.ID, paid.ID} {
		srv.wantError(t, srv.do(t, call{method: "PUT", path: path(id), body: body}), 422, 85000, id+" has already been marked paid")
	}
	srv.wantError(t, srv.do(t, call{method: "PUT", path: path("0e7a1f3c-9d5b-4c1a-8f2e-6b3d4a5c6d7e"), body: body}), 404, 84000, "0e7a1f3c")
	srv.wantError(t, srv.do(t, call{method: "PUT", path: path(open.ID), body: `{"PaymentDate": "yesterday"}`}), 400, 82000, "PaymentDate")
	srv.wantError(t, srv.do(t, call{method: "PUT", path: path("42"), body: body}), 400, 83000, "42")
}

func TestPauseSubscription(t *testing.T) {
	srv := start(t, Options{Seed: 6, Customers: 80}, "")
	states := map[string]*Subscription{}
	for _, s := range srv.Dataset().Subscriptions {
		if states[s.State] == nil {
			states[s.State] = s
		}
	}
	path := func(s *Subscription) string { return "/v3/subscriptions/" + s.ID + "/pause" }
	for _, st := range []string{StateNotActivated, StatePaused, StateCancelled} {
		srv.wantError(t, srv.do(t, call{method: "PUT", path: path(states[st])}), 422, 65000, "not activated")
	}
	act := states[StateActivated]
	if r := srv.do(t, call{method: "PUT", path: path(act)}); r.status != 200 || !strings.Contains(string(r.body), `"State":"Paused"`) {
		t.Fatalf("pause: %d %s", r.status, r.body)
	}
	srv.wantError(t, srv.do(t, call{method: "PUT", path: path(act)}), 422, 65000, act.ID)
	srv.wantError(t, srv.do(t, call{method: "PUT", path: "/v3/subscriptions/0e7a1f3c-9d5b-4c1a-8f2e-6b3d4a5c6d7e/pause"}), 404, 64000, "0e7a1f3c")
}
