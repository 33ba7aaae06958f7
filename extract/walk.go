package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strconv"
	"time"

	"github.com/billsnap/billsnap/internal/crashpoint"
)

// Sink takes one collection's pages in NextPage order.
type Sink interface {
	// Restart discards everything taken from an earlier walk of the
	// collection; it is called before every walk, the first included.
	Restart(walk int) error
	// Page takes a checked page. On the last walk allowed, records
	// already taken in the walk are left out of it; on the others every
	// record is there, and a repeat is found by End.
	Page(p *Page) error
	// End is called when a walk has handed over its last page, and
	// tallies the IDs of the records handed over in the walk. The walker
	// keeps no set of IDs itself: a sink counts them where it stores the
	// records (billsnap's in DuckDB, which spills to disk past its memory
	// limit), so that a walk's memory does not grow with the list.
	End() (Tally, error)
}

// Tally is what a sink counted of a walk's records.
type Tally struct {
	Distinct int    // distinct IDs
	Twice    string // an ID that came more than once; "" when none did
}

// Progress hears about pages as they are taken; it may be nil.
type Progress interface {
	Walking(table string, walk, totalCount int)
	PageDone(table string, records int)
}

// Walker walks collections through a Client.
type Walker struct {
	Client     *Client
	BaseURL    string
	FrontURL   string
	Prefetch   int // pages fetched ahead of the NextPage chain; 0 follows links one by one
	MaxRewalks int
	Limits     Limits // beyond what a list's first page claims (zero: no ceiling on claims, slack 100%)
	Clock      Clock
	Log        *slog.Logger
	Progress   Progress
}

// Result is what a collection's walk found.
type Result struct {
	Table      string
	Walks      int     // 1 plus the re-walks
	Pages      int     // pages of the last walk
	Records    int     // records received in the last walk, duplicates included
	Distinct   int     // distinct IDs of the last walk, as its sink counted them
	TotalCount int     // TotalCount of the last walk's first page
	Complete   bool    // the last walk was consistent
	Problem    string  // why not, when not
	Seconds    float64 // all walks together
}

// PageError is a page that stopped a walk.
type PageError struct {
	Table string
	Page  int    // the page asked for
	URL   string // redacted
	Err   error
}

func (e *PageError) Error() string {
	return fmt.Sprintf("collection %s, page %d, GET %s: %v", e.Table, e.Page, e.URL, e.Err)
}

func (e *PageError) Unwrap() error { return e.Err }

// drift is an inconsistency that a re-walk may cure.
type drift struct{ reason string }

func (d *drift) Error() string { return d.reason }

// Walk walks coll into sink, re-walking after drift up to MaxRewalks times.
// A nil error with Result.Complete false means the collection stayed
// inconsistent; an error means the walk could not be done.
func (w *Walker) Walk(ctx context.Context, coll Collection, sink Sink) (Result, error) {
	start := w.clock().Now()
	var res Result
	for walk := 1; ; walk++ {
		if err := sink.Restart(walk); err != nil {
			return res, err
		}
		st := newWalkState(w, coll, sink, walk, walk > w.MaxRewalks)
		err := st.run(ctx)
		res = st.result()
		res.Walks, res.Seconds = walk, w.clock().Now().Sub(start).Seconds()
		var d *drift
		if !errors.As(err, &d) {
			return res, err
		}
		if walk > w.MaxRewalks {
			res.Problem = d.reason
			return res, nil
		}
		w.log().Warn("collection drifted; walking it again", "collection", coll.Table, "walk", walk, "reason", d.reason)
		if err := w.clock().Sleep(ctx, time.Duration(walk)*500*time.Millisecond); err != nil {
			return res, err
		}
	}
}

// Now is the time of the walker's clock.
func (w *Walker) Now() time.Time { return w.clock().Now() }

func (w *Walker) clock() Clock {
	if w.Clock == nil {
		return RealClock{}
	}
	return w.Clock
}

func (w *Walker) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log
}

// walkState is one walk of one collection.
type walkState struct {
	w         *Walker
	coll      Collection
	sink      Sink
	walk      int
	final     bool // the last walk allowed: record drift and go on to the end
	pages     int
	records   int
	distinct  int
	seen      *idSet         // the last walk's only
	filter    *seenFilter    // the other walks'
	bounds    bounds         // set from the first page
	urls      map[string]int // URL -> page number
	total     int
	announced int    // Pages on the first page
	lastURL   string // the URL of the page taken last
	drifted   *drift
}

func newWalkState(w *Walker, coll Collection, sink Sink, walk int, final bool) *walkState {
	st := &walkState{w: w, coll: coll, sink: sink, walk: walk, final: final, urls: map[string]int{}}
	if final {
		st.seen = newIDSet()
	}
	return st
}

func (st *walkState) result() Result {
	return Result{Table: st.coll.Table, Pages: st.pages, Records: st.records, Distinct: st.distinct, TotalCount: st.total, Complete: st.drifted == nil}
}

// run walks from the first page to the last, one NextPage link after
// another. Once two successive links differ in nothing but the page number,
// it prefetches the pages after them with URLs of that pattern (once per
// walk: where a link breaks the pattern, it goes on one by one).
func (st *walkState) run(ctx context.Context) error {
	url, n, pages, prefetch := st.coll.FirstPage(st.w.BaseURL, st.w.FrontURL), 1, 0, st.w.Prefetch > 0
	for url != "" {
		page, err := st.fetch(ctx, url, n)
		if err != nil {
			return err
		}
		if n == 1 {
			pages = page.Paging.Pages
			if st.w.Progress != nil {
				st.w.Progress.Walking(st.coll.Table, st.walk, page.Paging.TotalCount)
			}
		}
		if err := st.take(page, n); err != nil {
			return err
		}
		next := page.Paging.NextPage
		if tmpl, ok := confirmedTemplate(url, next, n); ok && prefetch {
			prefetch = false
			if url, n, err = st.prefetched(ctx, tmpl, next, n+1, pages); err != nil {
				return err
			}
			continue
		}
		url, n = next, n+1
	}
	return st.finish()
}

// fetch gets page n at url after checking that url is fine to follow.
func (st *walkState) fetch(ctx context.Context, url string, n int) (*Page, error) {
	if err := st.follow(url, n); err != nil {
		return nil, err
	}
	p, err := st.w.Client.GetPage(WithPriority(ctx, st.priority(n)), st.coll, url)
	if err != nil {
		return nil, st.pageError(n, url, err)
	}
	p.URL = url
	return p, nil
}

// priority is page n's place at the gate: the pages of its collection,
// as its first page announced, so that the largest collections are walked
// first and loaded into DuckDB while the small ones are walked (ranking by
// pages left instead made every walk end together and every load wait for
// the end, which was slower; docs/benchmarks.md). First pages go
// before all, so that every collection's size is known early.
func (st *walkState) priority(n int) int {
	if n == 1 {
		return math.MaxInt32
	}
	return st.announced
}

// follow refuses a URL on another origin, and a URL visited before. The
// error is about the page whose NextPage gave the URL.
func (st *walkState) follow(url string, n int) error {
	if !st.w.Client.Allowed(url) {
		return st.pageError(n-1, st.lastURL, &ForeignHostError{URL: url})
	}
	if before, ok := st.urls[url]; ok {
		return st.pageError(n-1, st.lastURL, badPage("NextPage %s loops back to page %d", RedactURL(url), before))
	}
	st.urls[url] = n
	st.lastURL = url
	return nil
}

func (st *walkState) pageError(n int, url string, err error) error {
	var pe *PageError
	if err == nil || errors.As(err, &pe) || errors.Is(err, context.Canceled) {
		return err
	}
	return &PageError{Table: st.coll.Table, Page: n, URL: RedactURL(url), Err: err}
}

// take checks page n and hands it to the sink. Breaking the paging
// contract is an error; drift is recorded, and ends the walk unless final.
func (st *walkState) take(p *Page, n int) error {
	g := p.Paging
	switch {
	case g.CurrentPage != n:
		return st.pageError(n, p.URL, badPage("Paging.CurrentPage is %d on the page asked for as page %d", g.CurrentPage, n))
	case len(p.Records) > MaxPageSize:
		return st.pageError(n, p.URL, badPage("the page carries %d records, more than %d", len(p.Records), MaxPageSize))
	case g.Results != len(p.Records):
		return st.pageError(n, p.URL, badPage("Paging.Results is %d but the page carries %d records", g.Results, len(p.Records)))
	case n > 1 && n > st.bounds.pages:
		return st.pageError(n, p.URL, badPage("NextPage keeps going: page %d, past the %d pages that the first page's TotalCount %d and Pages %d allow",
			n, st.bounds.pages, st.total, st.announced))
	}
	if err := st.w.Limits.pastDeadline(st.w.clock().Now()); err != nil {
		return st.pageError(n, p.URL, err)
	}
	if n == 1 {
		if err := st.first(p); err != nil {
			return err
		}
	}
	st.pages++
	st.records += len(p.Records)
	if n > 1 && g.TotalCount != st.total {
		st.noteDrift("TotalCount changed from %d to %d on page %d", st.total, g.TotalCount, n)
	}
	if st.records > st.bounds.records {
		return st.pageError(n, p.URL, badPage("the walk has received %d records by this page, past the %d that the first page's TotalCount %d allows",
			st.records, st.bounds.records, st.total))
	}
	if st.drifted != nil && !st.final {
		return st.drifted
	}
	if err := st.catchRepeats(p, n); err != nil {
		return err
	}
	st.dropRepeats(p, n)
	crashpoint.Hit("walk.page")
	if err := st.sink.Page(p); err != nil {
		return st.pageError(n, p.URL, err)
	}
	if st.w.Progress != nil {
		st.w.Progress.PageDone(st.coll.Table, len(p.Records))
	}
	return nil
}

// first takes the claims of the first page p: the walk's ceilings and,
// but on the last walk allowed (which keeps an exact set), the filter of
// the IDs it takes. A TotalCount over the ceiling of the configuration is
// refused there.
func (st *walkState) first(p *Page) error {
	g, lim := p.Paging, st.w.Limits
	if lim.MaxRecords > 0 && g.TotalCount > lim.MaxRecords {
		return st.pageError(1, p.URL, badPage("TotalCount is %d, more than export.max_records (%d) allows a list", g.TotalCount, lim.MaxRecords))
	}
	slack := lim.SlackPercent
	if slack <= 0 {
		slack = 100
	}
	st.total, st.announced = g.TotalCount, g.Pages
	st.bounds = boundsOf(g.TotalCount, g.Pages, len(p.Records), slack)
	if st.seen == nil {
		st.filter = newSeenFilter(g.TotalCount)
	}
	return nil
}

// catchRepeats ends a walk (drift) at page n, p, when most of its records
// are ones the walk has taken before (seenFilter): a service that serves
// the same records page after page is caught there, not at the end of
// pages without end. The last walk allowed drops repeats one by one
// (dropRepeats) instead.
func (st *walkState) catchRepeats(p *Page, n int) error {
	if st.filter == nil {
		return nil
	}
	if hits := st.filter.repeats(p.Records); repeatsPage(hits, len(p.Records)) {
		st.noteDrift("page %d repeats %d of its %d records, taken before in this walk", n, hits, len(p.Records))
		return st.drifted
	}
	return nil
}

// dropRepeats leaves out of p, on the last walk allowed, the records
// whose ID the walk has taken before: the collection will be incomplete,
// and is kept as each record was first listed.
func (st *walkState) dropRepeats(p *Page, n int) {
	if st.seen == nil {
		return
	}
	kept := p.Records[:0:0]
	for _, r := range p.Records {
		if !st.seen.add(r.ID) {
			st.noteDrift("ID %s arrived twice (again on page %d)", r.ID, n)
			continue
		}
		kept = append(kept, r)
	}
	p.Records = kept
}

func (st *walkState) noteDrift(format string, args ...any) {
	if st.drifted == nil {
		st.drifted = &drift{reason: fmt.Sprintf(format, args...)}
	}
}

// finish has the sink tally the walk's IDs and checks them at the end of
// the walk: as many distinct IDs as TotalCount, and none twice. An ID
// that came twice is drift (a record moved while the list was paged), as
// is a count short; either way the walk is done again, up to MaxRewalks.
func (st *walkState) finish() error {
	t, err := st.sink.End()
	if err != nil {
		return fmt.Errorf("collection %s: %w", st.coll.Table, err)
	}
	st.distinct = t.Distinct
	switch {
	case t.Twice != "":
		st.noteDrift("ID %s arrived twice (%d records received, %d distinct IDs, TotalCount %d)", t.Twice, st.records, t.Distinct, st.total)
	case t.Distinct != st.total:
		st.noteDrift("%d distinct IDs received, TotalCount says %d", t.Distinct, st.total)
	}
	if st.drifted != nil {
		return st.drifted
	}
	return nil
}

var pageParam = regexp.MustCompile(`([?&]page=)(\d+)(&|$)`)

// pageTemplate recognises a NextPage link of page n whose page parameter is
// n, and returns how to write the link of any page in the same pattern.
func pageTemplate(next string, n int) (func(int) string, bool) {
	loc := pageParam.FindStringSubmatchIndex(next)
	if loc == nil || next[loc[4]:loc[5]] != strconv.Itoa(n) {
		return nil, false
	}
	head, tail := next[:loc[4]], next[loc[5]:]
	return func(k int) string { return head + strconv.Itoa(k) + tail }, true
}

// confirmedTemplate is the URL pattern of page numbers that url, the link
// to page n, and next, the link to page n+1, both follow with nothing else
// different: a list paged by cursor or token, whose links differ in more,
// has none.
func confirmedTemplate(url, next string, n int) (func(int) string, bool) {
	this, ok1 := pageTemplate(url, n)
	tmpl, ok2 := pageTemplate(next, n+1)
	if !ok1 || !ok2 || this(n+2) != tmpl(n+2) {
		return nil, false
	}
	return tmpl, true
}

// Counter tallies the IDs a sink that holds its records in memory takes
// (a list small enough for that: a subscription's charges, a read back).
type Counter struct {
	ids   map[string]bool
	twice string
}

// Reset forgets every ID: a sink's Restart.
func (c *Counter) Reset() { c.ids, c.twice = map[string]bool{}, "" }

// Add counts id.
func (c *Counter) Add(id string) {
	if c.ids == nil {
		c.Reset()
	}
	if c.ids[id] && c.twice == "" {
		c.twice = id
	}
	c.ids[id] = true
}

// Tally is what was counted since the last Reset: a sink's End.
func (c *Counter) Tally() Tally { return Tally{Distinct: len(c.ids), Twice: c.twice} }
