package extract

import (
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

const testKey = sandboxtest.Key

func newFakeClock() *fakeclock.Clock {
	return fakeclock.New(time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC))
}

// memSink keeps the IDs a walk hands over.
type memSink struct {
	mu       sync.Mutex
	ids      []string
	restarts int
	pages    int
}

func (s *memSink) Restart(int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids, s.pages = nil, 0
	s.restarts++
	return nil
}

func (s *memSink) Page(p *Page) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages++
	for _, r := range p.Records {
		s.ids = append(s.ids, r.ID)
	}
	return nil
}

// End tallies the IDs handed over since the last Restart.
func (s *memSink) End() (Tally, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t Tally
	seen := map[string]bool{}
	for _, id := range s.ids {
		if seen[id] && t.Twice == "" {
			t.Twice = id
		}
		seen[id] = true
	}
	t.Distinct = len(seen)
	return t, nil
}

func testRetry() Retry {
	return Retry{MaxAttempts: 6, InitialDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second, MaxRetryAfter: time.Minute}
}

// newWalker walks base/front with key through a client on clock.
func newWalker(t *testing.T, base, front, key string, clock Clock, prefetch int) *Walker {
	t.Helper()
	return newRetryingWalker(t, base, front, key, clock, prefetch, testRetry())
}

// newRetryingWalker is newWalker with retry instead of testRetry().
func newRetryingWalker(t *testing.T, base, front, key string, clock Clock, prefetch int, retry Retry) *Walker {
	t.Helper()
	c, err := NewClient(Options{BaseURL: base, FrontURL: front, Secret: NewSecret(key), Concurrency: 4,
		Timeout: 10 * time.Second, Retry: retry, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return &Walker{Client: c, BaseURL: base, FrontURL: front, Prefetch: prefetch, MaxRewalks: 2, Clock: clock}
}

// testCollections are the sandbox's lists, as the snapshot's catalogue
// names them (catalog.Collections, which these tests cannot import).
var testCollections = []Collection{
	{"customers", "/Customers/", true, 2},
	{"contacts", "/Contacts/", true, 4},
	{"payment_methods", "/PaymentMethods/", true, 3},
	{"discounts", "/Discounts/", true, 5},
	{"subscriptions", "/Subscriptions/", true, 6},
	{"subscription_charges", "/SubscriptionCharges/", true, 7},
	{"invoices", "/Invoices/", true, 8},
	{"product_plans", "/v3/productplans/query?$expand=ProductPlanCharges,ProductPlanChargePricings", false, 9},
	{"transactions", "/Transactions/", true, 1},
	{"units_of_measure", "/UnitsOfMeasure/", true, 11},
	{"business_units", "/BusinessUnits/", true, 12},
	{"tax_rules", "/TaxRules/", true, 13},
}

func collection(t *testing.T, table string) Collection {
	t.Helper()
	for _, c := range testCollections {
		if c.Table == table {
			return c
		}
	}
	t.Fatalf("no collection %s", table)
	return Collection{}
}
