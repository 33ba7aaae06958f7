package recheck

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A SubscriptionID that is not a GUID never reaches the OData filter: the
// sandbox, over HTTP, receives no request for it, and the error names it.
// A GUID is sent, and the sandbox answers with that subscription's charges.
func TestFetchSendsOnlyAGUIDIntoTheFilter(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 3, Customers: 5}, "")
	c, err := extract.NewClient(extract.Options{BaseURL: srv.BaseURL(), FrontURL: srv.FrontURL(), Secret: extract.NewSecret(sandboxtest.Key),
		Concurrency: 2, Timeout: 10 * time.Second, Retry: extract.Retry{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	w := &extract.Walker{Client: c, BaseURL: srv.BaseURL(), FrontURL: srv.FrontURL()}
	for _, sub := range []string{"x' or SubscriptionID ne guid'00000000-0000-4000-8000-000000000000",
		"../../v3/invoices", "00000000-0000-4000-8000-00000000000'"} {
		before := srv.Requests()
		_, err := fetch(context.Background(), w, sub)
		if err == nil || !strings.Contains(err.Error(), "is not a GUID") || !strings.Contains(err.Error(), sub) {
			t.Errorf("%q: error %v, want it refused and named", sub, err)
		}
		if n := srv.Requests() - before; n != 0 {
			t.Errorf("%q: %d requests sent", sub, n)
		}
	}
	sub := srv.Dataset().Charges[0].SubscriptionID
	cs, err := fetch(context.Background(), w, sub)
	if err != nil || len(cs) == 0 {
		t.Fatalf("%s: %d charges, %v", sub, len(cs), err)
	}
	for _, ch := range cs {
		if !strings.EqualFold(ch.SubscriptionID, sub) {
			t.Errorf("charge %s of subscription %s, asked for %s", ch.ID, ch.SubscriptionID, sub)
		}
	}
}
