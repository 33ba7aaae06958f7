package sandbox

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseFaults(t *testing.T) {
	f, err := ParseFaults("latency=20ms, jitter=5ms,500=0.05,429=0.02,retry-after=0s,loop=Customers@3,insert=invoices@2/0,totalcount=Contacts,foreign-host=http://other:1/")
	if err != nil {
		t.Fatal(err)
	}
	if f.Latency != 20*time.Millisecond || f.Jitter != 5*time.Millisecond || f.Err500 != 0.05 || f.TooMany != 0.02 || f.RetryAfter != 0 || f.ForeignHost != "http://other:1" {
		t.Errorf("parsed %+v", f)
	}
	if l := f.Loop[0]; l.Collection != "customers" || l.Page != 3 || l.Times != 1 {
		t.Errorf("loop %+v", l)
	}
	if i := f.Insert[0]; i.Page != 2 || i.Times != 0 {
		t.Errorf("insert %+v", i)
	}
	if c := f.TotalCount[0]; c.Page != 0 || c.Times != 0 {
		t.Errorf("totalcount %+v", c)
	}
	for _, bad := range []string{"500", "500=2", "latency=fast", "loop=@2", "loop=Customers@0", "loop=Customers@2/x", "gremlins=1"} {
		if _, err := ParseFaults(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseFaults(%q) = %v, want an error naming it", bad, err)
		}
	}
}

func TestRateFaults(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		check func(t *testing.T, srv *Server, r response)
	}{
		{"500=1", func(t *testing.T, srv *Server, r response) { srv.wantError(t, r, 500, 21000, "internal") }},
		{"502=1", wantHTML(502)},
		{"503=1", wantHTML(503)},
		{"html=1", wantHTML(200)},
		{"429=1,retry-after=3s", func(t *testing.T, srv *Server, r response) {
			srv.wantError(t, r, 429, 21000, "Retry-After")
			if r.header.Get("Retry-After") != "3" {
				t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
			}
		}},
		{"truncate=1", func(t *testing.T, srv *Server, r response) {
			if r.err == nil || !strings.Contains(r.err.Error(), "unexpected EOF") {
				t.Errorf("truncated body read: err %v, %d bytes", r.err, len(r.body))
			}
		}},
		{"reset=1", func(t *testing.T, srv *Server, r response) {
			if r.err == nil {
				t.Errorf("reset: got status %d", r.status)
			}
		}},
		{"latency=1ms,jitter=1ms", func(t *testing.T, srv *Server, r response) { r.page(t) }},
		{"echo=1", func(t *testing.T, srv *Server, r response) {
			srv.wantError(t, r, 400, 21000, "Authorization: Bearer "+base64.StdEncoding.EncodeToString([]byte(testKey)))
		}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			srv := start(t, Options{Seed: 1, Customers: 20}, tc.spec)
			tc.check(t, srv, srv.do(t, call{path: "/Customers/"}))
		})
	}
}

func wantHTML(status int) func(t *testing.T, srv *Server, r response) {
	return func(t *testing.T, srv *Server, r response) {
		if r.status != status || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.HasPrefix(string(r.body), "<!DOCTYPE html>") {
			t.Errorf("want an HTML page with %d, got %d %q %.80s", status, r.status, r.header.Get("Content-Type"), r.body)
		}
	}
}

func TestFaultsLeaveOperationsAlone(t *testing.T) {
	srv := start(t, Options{Seed: 1, Customers: 20}, "500=1")
	if r := srv.do(t, call{method: "POST", path: "/v3/customers", body: `{"FullName": "A"}`}); r.status != http.StatusCreated {
		t.Errorf("POST under GET faults: %d", r.status)
	}
}

func TestPageTriggers(t *testing.T) {
	const n = 250 // customers: 3 pages
	first := func(srv *Server) page { return srv.do(t, call{path: "/Customers/?page=1"}).page(t) }
	second := func(srv *Server) page { return srv.do(t, call{path: "/Customers/?page=2"}).page(t) }
	t.Run("loop", func(t *testing.T) {
		srv := start(t, Options{Seed: 1, Customers: n}, "loop=Customers@2/2")
		for range 2 {
			if next := *second(srv).Paging.NextPage; !strings.HasSuffix(next, "/Customers/?page=1") {
				t.Errorf("looping NextPage %q", next)
			}
		}
		if next := *second(srv).Paging.NextPage; !strings.HasSuffix(next, "page=3") {
			t.Errorf("after two firings NextPage %q", next)
		}
	})
	t.Run("foreign", func(t *testing.T) {
		srv := start(t, Options{Seed: 1, Customers: n}, "foreign=customers@1,foreign-host=http://127.0.0.1:9")
		if next := *first(srv).Paging.NextPage; next != "http://127.0.0.1:9/Customers/?page=2" {
			t.Errorf("foreign NextPage %q", next)
		}
	})
	t.Run("totalcount", func(t *testing.T) {
		srv := start(t, Options{Seed: 1, Customers: n}, "totalcount=Customers")
		truth := srv.AnswerKey().Tables["customers"].Count
		if a, b := first(srv).Paging.TotalCount, second(srv).Paging.TotalCount; a != truth+1 || b != truth+1 {
			t.Errorf("TotalCount %d, %d; truth %d", a, b, truth)
		}
	})
	t.Run("oversize", func(t *testing.T) {
		srv := start(t, Options{Seed: 1, Customers: n}, "oversize=Customers@1")
		if p := first(srv); len(p.Items) != PageSize+1 || p.Paging.Results != PageSize+1 {
			t.Errorf("oversize page: %d items, Results %d", len(p.Items), p.Paging.Results)
		}
	})
	t.Run("insert", func(t *testing.T) {
		srv := start(t, Options{Seed: 1, Customers: n}, "insert=Customers@1")
		p1, p2 := first(srv), second(srv)
		if p2.Paging.TotalCount != p1.Paging.TotalCount+1 || p2.Items[0]["ID"] != p1.Items[PageSize-1]["ID"] {
			t.Errorf("insert: TotalCount %d -> %d; page 2 starts with %v, page 1 ended with %v",
				p1.Paging.TotalCount, p2.Paging.TotalCount, p2.Items[0]["ID"], p1.Items[PageSize-1]["ID"])
		}
		if srv.AnswerKey().Tables["customers"].Count != p2.Paging.TotalCount {
			t.Error("answer key does not follow the inserted record")
		}
	})
	t.Run("keylink", func(t *testing.T) {
		srv := start(t, Options{Seed: 1, Customers: n}, "keylink=Customers@1")
		if next := *first(srv).Paging.NextPage; !strings.HasSuffix(next, "page=2&access_token="+url.QueryEscape(testKey)) {
			t.Errorf("NextPage %q does not carry the key", next)
		}
	})
	t.Run("states", func(t *testing.T) {
		srv := start(t, Options{Seed: 1, Customers: n}, "insert=Customers@1/2")
		before := srv.AnswerKey().Tables["customers"]
		first(srv)
		first(srv)
		states := srv.States()["customers"]
		if len(states) != 3 || states[0] != before || states[2] != srv.AnswerKey().Tables["customers"] || states[1].Count != before.Count+1 {
			t.Errorf("states of customers after two inserts: %v (before %v)", states, before)
		}
		if len(srv.States()["tax_rules"]) != 1 {
			t.Error("a table drift did not touch has more than one state")
		}
	})
	t.Run("delete", func(t *testing.T) {
		srv := start(t, Options{Seed: 1, Customers: n}, "delete=Customers@1")
		ids := srv.AnswerKey()
		p1, p2 := first(srv), second(srv)
		all := srv.Dataset().Customers
		if p2.Paging.TotalCount != p1.Paging.TotalCount-1 || p2.Items[0]["ID"] != all[PageSize+1].ID {
			t.Errorf("delete: TotalCount %d -> %d; page 2 starts with %v, want %s (record %s skipped)",
				p1.Paging.TotalCount, p2.Paging.TotalCount, p2.Items[0]["ID"], all[PageSize+1].ID, all[PageSize].ID)
		}
		if srv.AnswerKey().Tables["customers"] == ids.Tables["customers"] {
			t.Error("answer key does not follow the deleted record")
		}
	})
}

func TestDriftRecordsAreCleanForEveryList(t *testing.T) {
	var spec []string
	for _, def := range listDefs {
		spec = append(spec, "insert="+def.name+"@1")
	}
	srv := start(t, Options{Seed: 9, Customers: 120}, strings.Join(spec, ","))
	before := srv.AnswerKey()
	for _, def := range listDefs {
		srv.do(t, call{path: "/" + def.name + "/"}).page(t)
		if got, was := srv.AnswerKey().Tables[def.table].Count, before.Tables[def.table].Count; got != was+1 {
			t.Errorf("%s: %d records after the insert fault, want %d", def.name, got, was+1)
		}
	}
	l := srv.lists
	d := &Dataset{Now: srv.Now(), Customers: typed[*Customer](l["customers"].recs),
		Subscriptions: typed[*Subscription](l["subscriptions"].recs), Charges: typed[*SubscriptionCharge](l["subscriptioncharges"].recs),
		Invoices: typed[*Invoice](l["invoices"].recs), Plans: typed[*ProductPlan](l["productplans"].recs),
		Transactions: typed[*Transaction](l["transactions"].recs)}
	for rule, fs := range computeRules(d) {
		t.Errorf("drift records trigger %s: %+v", rule, fs)
	}
}

func typed[T any](recs []any) []T {
	out := make([]T, len(recs))
	for i, r := range recs {
		out[i] = r.(T)
	}
	return out
}
