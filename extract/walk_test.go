package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

func TestWalkEveryCollectionEqualsTheAnswerKey(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 11, Customers: 150, Planted: 1}, "")
	key := srv.AnswerKey()
	for _, prefetch := range []int{0, 8} {
		w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), prefetch)
		for _, coll := range testCollections {
			sink := &memSink{}
			res, err := w.Walk(context.Background(), coll, sink)
			want := key.Tables[coll.Table]
			if err != nil || !res.Complete || res.Walks != 1 {
				t.Fatalf("prefetch %d, %s: %+v, %v", prefetch, coll.Table, res, err)
			}
			if sandbox.HashIDs(sink.ids) != want.IDsSHA256 || res.Distinct != want.Count || res.TotalCount != want.Count {
				t.Errorf("prefetch %d, %s: %d IDs, result %+v; answer key %+v", prefetch, coll.Table, len(sink.ids), res, want)
			}
		}
	}
}

func TestPrefetchUsesOneRequestPerPage(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 12, Customers: 400}, "")
	w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), 8)
	before := srv.Requests()
	res, err := w.Walk(context.Background(), collection(t, "subscription_charges"), &memSink{})
	if err != nil || !res.Complete || res.Pages < 50 {
		t.Fatalf("%+v %v", res, err)
	}
	if got := srv.Requests() - before; got != int64(res.Pages) {
		t.Errorf("%d requests for %d pages", got, res.Pages)
	}
}

func TestRetriesThroughFaults(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 13, Customers: 300}, "500=0.08,502=0.04,503=0.04,429=0.05,retry-after=2s,truncate=0.05,reset=0.05")
	clock := newFakeClock()
	// Faults answer about 31% of requests. With six attempts a page is
	// given up about once in a thousand, so one of the several hundred
	// pages here was, in about 1 run in 400; twelve attempts make that
	// about once in a million pages.
	retry := testRetry()
	retry.MaxAttempts = 12
	w := newRetryingWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, clock, 6, retry)
	for _, coll := range testCollections {
		sink := &memSink{}
		res, err := w.Walk(context.Background(), coll, sink)
		if err != nil || !res.Complete || sandbox.HashIDs(sink.ids) != srv.AnswerKey().Tables[coll.Table].IDsSHA256 {
			t.Fatalf("%s under faults: %+v, %v", coll.Table, res, err)
		}
	}
	st := w.Client.Stats()
	if st.Retries == 0 || st.Throttles == 0 {
		t.Fatalf("faults were not met: %+v", st)
	}
	honoured := 0
	for _, d := range clock.Slept() {
		if d == 2*time.Second {
			honoured++
		}
	}
	if honoured < int(st.Throttles) {
		t.Errorf("%d throttles but %d waits of Retry-After (2s): %v", st.Throttles, honoured, clock.Slept())
	}
}

func TestGiveUpAfterMaxAttempts(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 10}, "503=1")
	w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), 0)
	_, err := w.Walk(context.Background(), collection(t, "contacts"), &memSink{})
	var pe *PageError
	if !errors.As(err, &pe) || pe.Page != 1 || !strings.Contains(err.Error(), "gave up after 6 attempts") || srv.Requests() != 6 {
		t.Errorf("err %v after %d requests", err, srv.Requests())
	}
}

func TestAuthFailureIsNotRetried(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 10}, "")
	w := newWalker(t, srv.BaseURL(), srv.FrontURL(), "wrong-key-123", newFakeClock(), 4)
	_, err := w.Walk(context.Background(), collection(t, "invoices"), &memSink{})
	var api *APIError
	if !errors.As(err, &api) || !api.IsAuth() || api.Errorcode != 87000 || api.ObjectName() != "Invoice" || srv.Requests() != 1 {
		t.Fatalf("err %v (%d requests)", err, srv.Requests())
	}
	if strings.Contains(err.Error(), "wrong-key-123") {
		t.Error("the error shows the key")
	}
}

// Drift after page 1 is seen by every later page, prefetched or not. (A
// change after page 2 may come after a prefetched page 3 was served: then
// the walk is a consistent picture of the moment before the change, which
// the prefetch cases below do not test.)
func TestDriftIsWalkedAgain(t *testing.T) {
	for _, tc := range []struct {
		faults   string
		prefetch int
		walks    int
		complete bool
		problem  string
	}{
		{"insert=Customers@2", 0, 2, true, ""},
		{"insert=Customers@1", 4, 2, true, ""},
		{"delete=Customers@1", 0, 2, true, ""},
		{"delete=Customers@1", 4, 2, true, ""},
		{"totalcount=Customers@2", 4, 2, true, ""},
		{"insert=Customers@1/0", 4, 3, false, "TotalCount changed"},
		{"totalcount=Customers", 4, 3, false, "TotalCount says"},
		{"delete=Customers@1/0", 0, 3, false, ""},
		// A record that moves keeps TotalCount: only the tally of the
		// IDs the sink took sees that one came twice (and one never).
		{"move=Customers@1", 0, 2, true, ""},
		{"move=Customers@1", 4, 2, true, ""},
		{"move=Customers@1/0", 4, 3, false, "arrived twice"},
	} {
		t.Run(fmt.Sprintf("%s/prefetch=%d", tc.faults, tc.prefetch), func(t *testing.T) {
			srv := sandboxtest.Start(t, sandbox.Options{Seed: 14, Customers: 250}, tc.faults)
			w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), tc.prefetch)
			sink := &memSink{}
			res, err := w.Walk(context.Background(), collection(t, "customers"), sink)
			if err != nil || res.Walks != tc.walks || res.Complete != tc.complete || sink.restarts != tc.walks || !strings.Contains(res.Problem, tc.problem) {
				t.Fatalf("%+v, %v (restarts %d)", res, err, sink.restarts)
			}
			if tc.complete && sandbox.HashIDs(sink.ids) != srv.AnswerKey().Tables["customers"].IDsSHA256 {
				t.Error("the re-walk does not equal the service's data")
			}
			if tally, _ := sink.End(); !tc.complete && len(sink.ids) != tally.Distinct {
				t.Errorf("an incomplete walk handed over %d records for %d distinct IDs", len(sink.ids), tally.Distinct)
			}
		})
	}
}

func TestForeignNextPageIsNeverRequested(t *testing.T) {
	var foreign atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreign.Add(1)
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the key reached the foreign host")
		}
	}))
	defer other.Close()
	for _, prefetch := range []int{0, 4} {
		srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 250}, "foreign=Customers@1,foreign-host="+other.URL)
		w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), prefetch)
		_, err := w.Walk(context.Background(), collection(t, "customers"), &memSink{})
		var fh *ForeignHostError
		if !errors.As(err, &fh) || !strings.Contains(err.Error(), strings.TrimPrefix(other.URL, "http://")) || !strings.Contains(err.Error(), "page 1, GET "+srv.URL+"/Customers/?page=1: NextPage points to another host") {
			t.Errorf("prefetch %d: err %v", prefetch, err)
		}
	}
	if foreign.Load() != 0 {
		t.Errorf("the foreign host got %d requests", foreign.Load())
	}
}

func TestContractBreaksStopTheWalk(t *testing.T) {
	for _, tc := range []struct{ faults, want string }{
		{"loop=Customers@2", "loops back to page 1"},
		{"loop=Customers@1", "loops back to page 1"},
		{"oversize=Customers@2", "101 records, more than 100"},
		{"html=1", "the response is text/html; charset=utf-8, not JSON"},
	} {
		for _, prefetch := range []int{0, 3} {
			srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 250}, tc.faults)
			w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), prefetch)
			_, err := w.Walk(context.Background(), collection(t, "customers"), &memSink{})
			var pe *PageError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "collection customers, page ") ||
				!strings.Contains(err.Error(), srv.URL+"/Customers/") {
				t.Errorf("%s (prefetch %d): %v", tc.faults, prefetch, err)
			}
		}
	}
}

func TestPageTemplate(t *testing.T) {
	tmpl, ok := pageTemplate("http://h/v3/q?$expand=A,B&page=2&x=1", 2)
	if !ok || tmpl(7) != "http://h/v3/q?$expand=A,B&page=7&x=1" {
		t.Errorf("template: %v", ok)
	}
	for _, next := range []string{"http://h/C/?page=3", "http://h/C/?cursor=abc", "http://h/C/?apage=2"} {
		if _, ok := pageTemplate(next, 2); ok {
			t.Errorf("%s taken for page 2", next)
		}
	}
}

func TestTimeoutsAreRetriedThenReported(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 10}, "latency=400ms")
	c, err := NewClient(Options{BaseURL: srv.BaseURL(), FrontURL: srv.FrontURL(), Secret: NewSecret(testKey), Concurrency: 2,
		Timeout: 40 * time.Millisecond, Retry: testRetry(), Clock: newFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	c.retry.MaxAttempts = 2
	w := &Walker{Client: c, BaseURL: srv.BaseURL(), FrontURL: srv.FrontURL(), Clock: newFakeClock()}
	_, err = w.Walk(context.Background(), collection(t, "tax_rules"), &memSink{})
	if err == nil || !strings.Contains(err.Error(), "gave up after 2 attempts") || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("err %v", err)
	}
}

// On a list paged by cursor, prefetch guesses no URL: page n+1's link
// carries a cursor of its own, so the links differ in more than the page
// number and every page is asked for by its NextPage link. The sandbox
// refuses a page asked for without its cursor.
func TestPrefetchGuessesNoURLOnACursorList(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 14, Customers: 300}, "cursor=Subscriptions")
	w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), 8)
	before := srv.Requests()
	sink := &memSink{}
	res, err := w.Walk(context.Background(), collection(t, "subscriptions"), sink)
	if err != nil || !res.Complete || res.Pages < 5 {
		t.Fatalf("%+v %v", res, err)
	}
	if sandbox.HashIDs(sink.ids) != srv.AnswerKey().Tables["subscriptions"].IDsSHA256 {
		t.Errorf("%d IDs, not the answer key's", len(sink.ids))
	}
	if got := srv.Requests() - before; srv.Refused() != 0 || got != int64(res.Pages) {
		t.Errorf("%d requests for %d pages, %d refused", got, res.Pages, srv.Refused())
	}
}

// A list that never ends, serving its first records again past its last
// page, is caught at the first page that repeats them on every walk but
// the last, and the last stops at the records its first page's claims
// allow, with slack: a walk is bounded by its claims, not by the service.
func TestAnEndlessListIsCaughtAtItsFirstRepeat(t *testing.T) {
	for _, prefetch := range []int{0, 3} {
		srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 250}, "endless=Customers")
		w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), prefetch)
		var log strings.Builder
		w.Log = slog.New(slog.NewTextHandler(&log, nil))
		total := srv.AnswerKey().Tables["customers"].Count
		pages := (total + sandbox.PageSize - 1) / sandbox.PageSize
		res, err := w.Walk(context.Background(), collection(t, "customers"), &memSink{})
		want := fmt.Sprintf("past the %d that the first page's TotalCount %d allows", 2*total+sandbox.PageSize, total)
		if err == nil || !strings.Contains(err.Error(), want) || res.Walks != 3 {
			t.Fatalf("prefetch %d: %+v, %v; want walk 3 to end with %q", prefetch, res, err, want)
		}
		if n := strings.Count(log.String(), fmt.Sprintf("page %d repeats %d of its %d records", pages+1, sandbox.PageSize, sandbox.PageSize)); n != 2 {
			t.Errorf("prefetch %d: %d walks caught at page %d, want 2:\n%s", prefetch, n, pages+1, log.String())
		}
	}
}

// A list whose first page claims more records than the configuration's
// ceiling is refused at that page.
func TestAClaimOverTheCeilingIsRefusedAtPageOne(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 250}, "claim=Customers@1")
	w := newWalker(t, srv.BaseURL(), srv.FrontURL(), testKey, newFakeClock(), 3)
	w.Limits.MaxRecords = 100_000_000
	_, err := w.Walk(context.Background(), collection(t, "customers"), &memSink{})
	want := "collection customers, page 1, GET " + srv.URL + "/Customers/?page=1: TotalCount is 1000000000, more than export.max_records (100000000) allows a list"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v, want %q", err, want)
	}
}

// The ceilings of a walk follow the fewer of its first page's claims,
// with slack, and never fall below a few pages for a list that grows.
func TestBoundsOf(t *testing.T) {
	for _, tc := range []struct {
		total, announced, first, slack int
		want                           bounds
	}{
		{250, 3, 100, 100, bounds{pages: 16, records: 600}},
		{250, 3_000_000, 100, 100, bounds{pages: 16, records: 600}}, // Pages claims more than TotalCount needs
		{250, 1, 100, 100, bounds{pages: 12, records: 600}},         // and less
		{0, 0, 0, 100, bounds{pages: 10, records: 100}},             // an empty list
		{1000, 10, 100, 10, bounds{pages: 21, records: 1200}},
	} {
		if got := boundsOf(tc.total, tc.announced, tc.first, tc.slack); got != tc.want {
			t.Errorf("boundsOf(%d, %d, %d, %d) = %+v, want %+v", tc.total, tc.announced, tc.first, tc.slack, got, tc.want)
		}
	}
}
