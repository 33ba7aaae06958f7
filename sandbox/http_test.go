package sandbox

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// objectPaths are every endpoint with the object code of its errors.
var objectPaths = []struct {
	method, path string
	object       int
}{
	{"GET", "/Customers/", 2}, {"GET", "/Contacts/", 4}, {"GET", "/PaymentMethods/", 3}, {"GET", "/Discounts/", 5},
	{"GET", "/Subscriptions/", 6}, {"GET", "/SubscriptionCharges/", 7}, {"GET", "/ProductPlans/", 9},
	{"GET", "/Invoices/", 8}, {"GET", "/Transactions/", 1}, {"GET", "/UnitsOfMeasure/", 11},
	{"GET", "/BusinessUnits/", 12}, {"GET", "/TaxRules/", 13},
	{"GET", "/v3/productplans/query", 9}, {"GET", "/v3/subscriptioncharges/query", 7},
	{"PUT", "/v3/subscriptioncharges/8d0c8e4a-1c1e-4b7a-9a55-2f1f2f0e1a11/setamountbyreferenceid", 7},
	{"POST", "/v3/customers", 2}, {"PUT", "/v3/invoices/8d0c8e4a-1c1e-4b7a-9a55-2f1f2f0e1a11/markpaid/", 8},
	{"PUT", "/v3/subscriptions/8d0c8e4a-1c1e-4b7a-9a55-2f1f2f0e1a11/pause", 6},
}

func TestAuthFailureGivesTheObjectsCode7000(t *testing.T) {
	srv := start(t, Options{Seed: 1, Customers: 20}, "")
	for _, p := range objectPaths {
		for name, c := range map[string]call{
			"missing":    {noAuth: true},
			"wrong key":  {auth: "Bearer " + "d3Jvbmc="},
			"not base64": {auth: "Bearer " + testKey},
			"no scheme":  {auth: "dGVzdC1rZXk="},
		} {
			t.Run(p.path+"/"+name, func(t *testing.T) {
				c.method, c.path, c.body = p.method, p.path, "{}"
				srv.wantError(t, srv.do(t, c), http.StatusUnauthorized, p.object*10000+7000, "API key")
			})
		}
	}
}

func TestHelplinkServesAPage(t *testing.T) {
	srv := start(t, Options{Seed: 1, Customers: 20}, "")
	e := srv.do(t, call{path: "/Invoices/", noAuth: true}).apiError(t)
	r := srv.do(t, call{path: e.Helplink, noAuth: true})
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "87000: Invoice, Authentication Failure") {
		t.Fatalf("help page %s: %d %s", e.Helplink, r.status, r.body)
	}
}

func TestFrontListsRequireXVersion(t *testing.T) {
	srv := start(t, Options{Seed: 1, Customers: 20}, "")
	srv.wantError(t, srv.do(t, call{path: "/Contacts/", noVersion: true}), http.StatusBadRequest, 41000, "x-version")
	if r := srv.do(t, call{path: "/v3/productplans/query", noVersion: true}); r.status != http.StatusOK {
		t.Errorf("base_url query without x-version: %d", r.status)
	}
}

func TestEveryListPagesAsSpecSection8(t *testing.T) {
	srv := start(t, Options{Seed: 3, Customers: 130, Planted: 1}, "")
	key := srv.AnswerKey()
	for _, def := range listDefs {
		t.Run(def.name, func(t *testing.T) {
			ids := walk(t, srv, srv.URL+"/"+def.name+"/?page=1", key.Tables[def.table].Count)
			if got := HashIDs(ids); got != key.Tables[def.table].IDsSHA256 || len(ids) != key.Tables[def.table].Count {
				t.Errorf("walked %d IDs, hash %s; answer key %+v", len(ids), got, key.Tables[def.table])
			}
		})
	}
}

// walk follows NextPage from first, checks every page against spec §8 and
// returns the IDs received.
func walk(t *testing.T, srv *Server, first string, total int) []string {
	t.Helper()
	var ids []string
	pages := int(math.Ceil(float64(total) / PageSize))
	for n, next := 1, first; next != ""; n++ {
		p := srv.do(t, call{path: next}).page(t)
		g := p.Paging
		if g.CurrentPage != n || g.Pages != pages || g.TotalCount != total || g.Results != len(p.Items) || len(p.Items) > PageSize {
			t.Fatalf("page %d: paging %+v with %d items; want %d pages, TotalCount %d", n, g, len(p.Items), pages, total)
		}
		if (n == 1) != (g.PreviousPage == nil) || (n > 1 && !strings.HasPrefix(*g.PreviousPage, srv.URL+"/")) {
			t.Fatalf("page %d: PreviousPage %v", n, g.PreviousPage)
		}
		for _, it := range p.Items {
			ids = append(ids, str(it["ID"]))
		}
		next = ""
		if g.NextPage != nil {
			next = *g.NextPage
			if !strings.HasPrefix(next, srv.URL+"/") || !strings.Contains(next, fmt.Sprintf("page=%d", n+1)) {
				t.Fatalf("page %d: NextPage %q is not the absolute link to page %d", n, next, n+1)
			}
		} else if n != max(pages, 1) {
			t.Fatalf("NextPage null on page %d of %d", n, pages)
		}
	}
	return ids
}

func TestPageParameter(t *testing.T) {
	srv := start(t, Options{Seed: 1, Customers: 20}, "")
	for _, bad := range []string{"0", "-1", "two", "1.5"} {
		srv.wantError(t, srv.do(t, call{path: "/Customers/?page=" + bad}), http.StatusBadRequest, 23000, "page")
	}
	p := srv.do(t, call{path: "/Customers/?page=9"}).page(t)
	if len(p.Items) != 0 || p.Paging.NextPage != nil || p.Paging.Results != 0 || p.Paging.TotalCount == 0 {
		t.Errorf("page past the end: %+v", p.Paging)
	}
	if p := srv.do(t, call{path: "/customers"}).page(t); p.Paging.CurrentPage != 1 || len(p.Items) == 0 {
		t.Errorf("no page parameter: %+v", p.Paging)
	}
}

// A list paged by cursor (fault cursor=COLL) links each page with its own
// cursor and refuses a page asked for without it, counting the refusal.
func TestACursorListRefusesAGuessedPage(t *testing.T) {
	srv := start(t, Options{Seed: 1, Customers: 300}, "cursor=Subscriptions")
	p1 := srv.do(t, call{path: "/Subscriptions/?page=1"}).page(t)
	if p1.Paging.NextPage == nil || !strings.Contains(*p1.Paging.NextPage, "page=2&cursor=") {
		t.Fatalf("page 1 links to %v", p1.Paging.NextPage)
	}
	next, _ := url.Parse(*p1.Paging.NextPage)
	p2 := srv.do(t, call{path: next.RequestURI()}).page(t)
	if p2.Paging.CurrentPage != 2 || p2.Paging.NextPage == nil || srv.Refused() != 0 {
		t.Fatalf("page 2 by its link: %+v, %d refused", p2.Paging, srv.Refused())
	}
	guess := strings.Replace(next.RequestURI(), "page=2", "page=3", 1)
	srv.wantError(t, srv.do(t, call{path: guess}), http.StatusBadRequest, 63000, "cursor")
	srv.wantError(t, srv.do(t, call{path: "/Subscriptions/?page=3"}), http.StatusBadRequest, 63000, "page 3")
	if srv.Refused() != 2 {
		t.Errorf("%d refused, want 2", srv.Refused())
	}
	if p := srv.do(t, call{path: "/Customers/?page=2"}).page(t); p.Paging.CurrentPage != 2 {
		t.Errorf("a list not paged by cursor: %+v", p.Paging)
	}
}

func TestUnknownPathAndWrongMethod(t *testing.T) {
	srv := start(t, Options{Seed: 1, Customers: 20}, "")
	srv.wantError(t, srv.do(t, call{path: "/Widgets/"}), http.StatusNotFound, 4000, "/Widgets/")
	srv.wantError(t, srv.do(t, call{path: "/v3/widgets/query"}), http.StatusNotFound, 4000, "/v3/widgets/query")
	r := srv.do(t, call{method: "DELETE", path: "/Invoices/"})
	srv.wantError(t, r, http.StatusMethodNotAllowed, 81000, "DELETE")
	if r.header.Get("Allow") != "GET" {
		t.Errorf("Allow %q", r.header.Get("Allow"))
	}
	srv.wantError(t, srv.do(t, call{method: "GET", path: "/v3/customers"}), http.StatusMethodNotAllowed, 21000, "POST")
}

func TestProductPlanQueryExpand(t *testing.T) {
	srv := start(t, Options{Seed: 2, Customers: 200}, "")
	for _, tc := range []struct {
		expand            string
		charges, pricings bool
	}{
		{"", false, false},
		{"ProductPlanCharges", true, false},
		{"ProductPlanChargePricings", false, true},
		{"ProductPlanCharges,ProductPlanChargePricings", true, true},
		{"ProductPlanChargePricings, ProductPlanCharges", true, true},
	} {
		path := "/v3/productplans/query"
		if tc.expand != "" {
			path += "?$expand=" + url.QueryEscape(tc.expand)
		}
		p := srv.do(t, call{path: path, noVersion: true}).page(t)
		for _, it := range p.Items {
			_, c := it["ProductPlanCharges"]
			_, pr := it["ProductPlanChargePricings"]
			if c != tc.charges || pr != tc.pricings {
				t.Fatalf("$expand=%q: plan has charges %v pricings %v", tc.expand, c, pr)
			}
		}
		if len(p.Items) == 0 {
			t.Fatal("no plans")
		}
	}
	if p := srv.do(t, call{path: "/ProductPlans/"}).page(t); p.Items[0]["ProductPlanCharges"] != nil {
		t.Error("the front list sends nested lists unexpanded")
	}
}

func TestProductPlanQueryFilterBySKU(t *testing.T) {
	srv := start(t, Options{Seed: 2, Customers: 200}, "")
	plan := srv.Dataset().Plans[3]
	sku := plan.ProductPlanCharges[1].SKU
	for _, f := range []string{
		"ProductPlanCharges/all(o: o/SKU eq '" + sku + "')",
		"ProductPlanCharges/any(x:x/SKU eq '" + sku + "')",
	} {
		for _, enc := range []string{url.QueryEscape(f), url.PathEscape(f)} {
			p := srv.do(t, call{path: "/v3/productplans/query?$expand=ProductPlanCharges&$filter=" + enc}).page(t)
			if len(p.Items) != 1 || p.Items[0]["ID"] != plan.ID || p.Paging.TotalCount != 1 {
				t.Errorf("filter %q (%s): %d plans, want plan %s", f, enc, len(p.Items), plan.ID)
			}
		}
	}
	none := srv.do(t, call{path: "/v3/productplans/query?$filter=" + url.QueryEscape("ProductPlanCharges/all(o: o/SKU eq 'it''s none')")}).page(t)
	if len(none.Items) != 0 || none.Paging.TotalCount != 0 || none.Paging.NextPage != nil {
		t.Errorf("unknown SKU: %+v", none.Paging)
	}
}

func TestQueriesRefuseWhatTheyDoNotUnderstand(t *testing.T) {
	srv := start(t, Options{Seed: 2, Customers: 20}, "")
	for _, tc := range []struct {
		path string
		code int
		msg  string
	}{
		{"/v3/productplans/query?$filter=" + url.QueryEscape("FullName eq 'x'"), 98000, "$filter"},
		{"/v3/productplans/query?$filter=" + url.QueryEscape("ProductPlanCharges/all(o: p/SKU eq 'x')"), 98000, "$filter"},
		{"/v3/productplans/query?$expand=Widgets", 98000, "Widgets"},
		{"/v3/productplans/query?$top=5", 98000, "$top"},
		{"/v3/subscriptioncharges/query?$filter=" + url.QueryEscape("SubscriptionID eq 'abc'"), 78000, "$filter"},
		{"/v3/subscriptioncharges/query?$filter=" + url.QueryEscape("SubscriptionID eq guid'not-a-guid'"), 78000, "$filter"},
		{"/v3/subscriptioncharges/query?$orderby=ID", 78000, "$orderby"},
		{"/v3/subscriptioncharges/query?page=x", 73000, "page"},
	} {
		srv.wantError(t, srv.do(t, call{path: tc.path}), http.StatusBadRequest, tc.code, tc.msg)
	}
}

func TestSubscriptionChargeQueryFilter(t *testing.T) {
	srv := start(t, Options{Seed: 4, Customers: 60}, "")
	sub := srv.Dataset().Subscriptions[5]
	var want []string
	for _, c := range srv.Dataset().Charges {
		if c.SubscriptionID == sub.ID {
			want = append(want, c.ID)
		}
	}
	f := url.QueryEscape("SubscriptionID eq guid'" + strings.ToUpper(sub.ID) + "'")
	p := srv.do(t, call{path: "/v3/subscriptioncharges/query?$filter=" + f}).page(t)
	var got []string
	for _, it := range p.Items {
		got = append(got, str(it["ID"]))
		if it["SubscriptionID"] != sub.ID {
			t.Errorf("charge of another subscription: %v", it)
		}
	}
	if !slices.Equal(got, want) || p.Paging.TotalCount != len(want) {
		t.Errorf("filtered charges %v, want %v", got, want)
	}
	all := walk(t, srv, srv.URL+"/v3/subscriptioncharges/query", len(srv.Dataset().Charges))
	if HashIDs(all) != srv.AnswerKey().Tables["subscription_charges"].IDsSHA256 {
		t.Error("unfiltered query does not page through every charge")
	}
}

func TestQueryPagesKeepTheirOptions(t *testing.T) {
	srv := start(t, Options{Seed: 5, Customers: 2600}, "")
	first := srv.URL + "/v3/productplans/query?$expand=ProductPlanCharges,ProductPlanChargePricings"
	ids := walk(t, srv, first, len(srv.Dataset().Plans))
	if len(ids) <= PageSize || HashIDs(ids) != srv.AnswerKey().Tables["product_plans"].IDsSHA256 {
		t.Fatalf("walked %d plans over pages", len(ids))
	}
	p := srv.do(t, call{path: first}).page(t)
	if next := *p.Paging.NextPage; !strings.Contains(next, "$expand=ProductPlanCharges,ProductPlanChargePricings") {
		t.Errorf("NextPage %q drops $expand", next)
	}
}
