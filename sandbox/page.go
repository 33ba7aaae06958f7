package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// PageSize is the most records a page carries (spec §8).
const PageSize = 100

// Paging is the paging object of spec §8.
type Paging struct {
	CurrentPage  int
	Pages        int
	Results      int
	TotalCount   int
	NextPage     *string
	PreviousPage *string
}

// listPage serves one page of l. keep, when not nil, filters and encodes
// the records (the /v3 queries); nil serves the list's own encoding. After
// the page is built, drift faults may change the list.
func (s *Sandbox) listPage(r *http.Request, l *list, keep func(rec any) ([]byte, bool)) reply {
	page, perr := pageParam(r, l.object)
	coll := strings.ToLower(l.name)
	if perr == nil {
		perr = s.faults.checkCursor(r, l.object, coll, page)
	}
	if perr != nil {
		return fail(perr)
	}
	s.mu.RLock()
	items := l.enc
	if keep != nil {
		items = nil
		for _, rec := range l.recs {
			if b, ok := keep(rec); ok {
				items = append(items, b)
			}
		}
	}
	body := s.buildPage(r, coll, page, items)
	s.mu.RUnlock()
	s.drift(l, coll, page)
	return replyOK(body)
}

// pageParam reads the page query parameter; absent means 1.
func pageParam(r *http.Request, object int) (int, *apiError) {
	v := r.URL.Query()["page"]
	if len(v) == 0 {
		return 1, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 1 {
		return 0, errorf(object, TypeBadParameter, "The page parameter must be a whole number of 1 or more, not %q.", v[0])
	}
	return n, nil
}

// buildPage writes the list envelope for page of items, applying the
// page-bound faults of coll.
func (s *Sandbox) buildPage(r *http.Request, coll string, page int, items [][]byte) []byte {
	f := s.faults
	n := len(items)
	from := min((page-1)*PageSize, n)
	to := min(from+PageSize, n)
	served := items[from:to]
	pages := (n + PageSize - 1) / PageSize
	endless := f.fire(f.Endless, coll, page)
	if endless && page > pages {
		served = items[:min(PageSize, n)]
	}
	if n > 0 && f.fire(f.Oversize, coll, page) {
		served = oversize(items, from)
	}
	p := Paging{CurrentPage: page, Pages: pages, Results: len(served), TotalCount: n}
	if f.fire(f.TotalCount, coll, page) {
		p.TotalCount++
	}
	if f.fire(f.Claim, coll, page) {
		p.TotalCount, p.Pages = 1_000_000_000, 10_000_000
	}
	link := func(n int) string { return f.withCursor(pageLink(r, n), coll, n) }
	if (page < pages || endless) && !f.fire(f.Cut, coll, page) {
		p.NextPage = ptr(link(page + 1))
	}
	if f.fire(f.Loop, coll, page) {
		p.NextPage = ptr(link(max(1, page-1)))
	}
	if p.NextPage != nil && f.fire(f.KeyLink, coll, page) {
		p.NextPage = ptr(*p.NextPage + "&access_token=" + url.QueryEscape(s.key))
	}
	if f.fire(f.Foreign, coll, page) {
		p.NextPage = ptr(f.ForeignHost + strings.TrimPrefix(link(page+1), origin(r)))
	}
	if page > 1 {
		p.PreviousPage = ptr(link(page - 1))
	}
	return envelope(served, p)
}

// oversize is a page of PageSize+1 records from from on, repeating the last
// record where the list runs out.
func oversize(items [][]byte, from int) [][]byte {
	from = min(from, len(items)-1)
	served := slices.Clone(items[from:min(from+PageSize+1, len(items))])
	for len(served) <= PageSize {
		served = append(served, served[len(served)-1])
	}
	return served
}

func ptr[T any](v T) *T { return &v }

// envelope is {"Items":[…],"Paging":{…}}.
func envelope(items [][]byte, p Paging) []byte {
	size := 64
	for _, it := range items {
		size += len(it) + 1
	}
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString(`{"Items":[`)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteString(`],"Paging":`)
	pj, _ := json.Marshal(p)
	b.Write(pj)
	b.WriteByte('}')
	return b.Bytes()
}

// pageLink is the absolute URL of page n of the request's list: the same
// path and query, with page set to n (and no cursor).
func pageLink(r *http.Request, n int) string {
	var parts []string
	for part := range strings.SplitSeq(r.URL.RawQuery, "&") {
		name, _, _ := strings.Cut(part, "=")
		if part != "" && name != "page" && name != "cursor" {
			parts = append(parts, part)
		}
	}
	parts = append(parts, "page="+strconv.Itoa(n))
	return origin(r) + r.URL.EscapedPath() + "?" + strings.Join(parts, "&")
}

// withCursor adds page n's cursor to link when coll is paged by cursor.
func (f *Faults) withCursor(link, coll string, n int) string {
	if n > 1 && slices.Contains(f.Cursor, coll) {
		return link + "&cursor=" + cursorOf(coll, n)
	}
	return link
}

// checkCursor refuses page n of coll, paged by cursor, asked for without
// its cursor.
func (f *Faults) checkCursor(r *http.Request, object int, coll string, n int) *apiError {
	if n == 1 || !slices.Contains(f.Cursor, coll) {
		return nil
	}
	if got := r.URL.Query().Get("cursor"); got != cursorOf(coll, n) {
		return errorf(object, TypeBadParameter, "The cursor %q is not the one for page %d; follow Paging.NextPage.", got, n)
	}
	return nil
}

// cursorOf is the opaque cursor of page n of coll.
func cursorOf(coll string, n int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s#%d", coll, n)
	return strconv.FormatUint(h.Sum64(), 36)
}
