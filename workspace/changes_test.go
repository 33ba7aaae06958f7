package workspace

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/hostile"
	"github.com/billsnap/billsnap/workspace/changes"
	"github.com/billsnap/billsnap/workspace/record"
)

// hostileEmail is an Email that is HTML, holds a terminal's escape and a
// right-to-left override, and is far longer than a snippet.
var hostileEmail = "\x1b[31m\u202e<script>alert(2)</script>" + strings.Repeat("x", 500) + "@example.com"

// hostileField is the name of a field a hostile service adds: a
// terminal's title escape and HTML.
const hostileField = "Note\x1b]0;pwned\x07<i>"

// changedStore is a fixture whose store holds two complete snapshots, the
// second after known changes through the sandbox's back office and a
// hostile proxy: the customers updated (the Email made hostileEmail; the
// FullName; a field hostileField added), deleted and inserted, by ID.
type changedStore struct {
	*fixture
	email, name, field, deleted, inserted string
	oldName                               string
	second                                string // the second snapshot
}

func newChangedStore(t *testing.T) *changedStore {
	t.Helper()
	fx := newFixture(t)
	cs := fx.sb.Dataset().Customers
	c := &changedStore{fixture: fx, email: cs[0].ID, name: cs[1].ID, deleted: cs[2].ID, field: cs[3].ID, oldName: cs[1].FullName,
		inserted: "00000000-0000-4000-8000-0000000000dd"}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fx.sb.Change("Customers", c.email, func(r any) { r.(*sandbox.Customer).Email = hostileEmail }))
	must(fx.sb.Change("Customers", c.name, func(r any) { r.(*sandbox.Customer).FullName += " Jr" }))
	must(fx.sb.Remove("Customers", c.deleted))
	must(fx.sb.Add("Customers", &sandbox.Customer{ID: c.inserted, FullName: "Dee", CurrencyCode: "USD", Created: time.Now().UTC()}))
	a := hostile.Attacks{}
	a.Member.ID, a.Member.Name, a.Member.Value = c.field, hostileField, "a note"
	hs := hostile.Start(t, fx.sb, a)
	base, front := fx.cfg.BaseURL, fx.cfg.FrontURL
	fx.cfg.BaseURL, fx.cfg.FrontURL = hs.BaseURL(), hs.FrontURL()
	fx.export(t)
	fx.cfg.BaseURL, fx.cfg.FrontURL = base, front
	fx.reconcile(t)
	var snaps []apiSnapshot
	srv := fx.serve(t, "")
	getJSON(t, srv, "/api/snapshots", &snaps)
	c.second = snaps[0].ID
	return c
}

// want are the changes made, as "table op id", in the list's order.
func (c *changedStore) want() []string {
	out := []string{"customers insert " + c.inserted, "customers delete " + c.deleted}
	var upd []string
	for _, id := range []string{c.email, c.name, c.field} {
		upd = append(upd, "customers update "+id)
	}
	slices.Sort(upd)
	return slices.Insert(out, 1, upd...)
}

// apiChangesOut is /api/changes's answer.
type apiChangesOut struct {
	Snapshot string                `json:"snapshot_id"`
	Previous string                `json:"previous_snapshot_id"`
	Tables   []changes.TableCounts `json:"tables"`
	Total    int                   `json:"total"`
	Page     int                   `json:"page"`
	Pages    int                   `json:"pages"`
	Changes  []changes.Row         `json:"changes"`
}

var (
	countLinkRE = regexp.MustCompile(`<td class="num"><a href="(/changes\?[^"]+)">(\d+)</a></td>`)
	changeRowRE = regexp.MustCompile(`<tr class="(insert|update|delete)"><td>([a-z_]+)</td><td class="id"><a href="/entities/[a-z_]+/([^"]+)">`)
)

// The overview counts the known inserts, updates and deletes of the
// latest snapshot per table, each count a link to exactly those records
// (each a link to its page); the API says the same; the list is paged.
func TestTheOverviewCountsTheLatestChanges(t *testing.T) {
	t.Parallel()
	c := newChangedStore(t)
	srv := c.serve(t, "")
	var got apiChangesOut
	getJSON(t, srv, "/api/changes", &got)
	if got.Snapshot != c.second || got.Previous == "" || got.Total != 5 || !slices.Contains(got.Tables,
		changes.TableCounts{Table: "customers", Inserted: 1, Updated: 3, Deleted: 1}) {
		t.Errorf("/api/changes: %+v", got)
	}
	var listed []string
	for _, ch := range got.Changes {
		listed = append(listed, ch.Table+" "+ch.Op+" "+ch.ID)
	}
	if want := c.want(); !slices.Equal(listed, want) {
		t.Errorf("/api/changes lists\n%q, want\n%q", listed, want)
	}
	overview := do(t, srv, call{path: "/"}).body
	links := countLinkRE.FindAllStringSubmatch(overview, -1)
	if len(links) != 3 {
		t.Fatalf("the overview links %d counts, want 3 (customers: 1 inserted, 3 updated, 1 deleted):\n%v", len(links), links)
	}
	seen := 0
	for _, l := range links {
		page := do(t, srv, call{path: html.UnescapeString(l[1])}).body
		rows := changeRowRE.FindAllStringSubmatch(page, -1)
		if fmt.Sprint(len(rows)) != l[2] {
			t.Errorf("%s: %d rows, the overview counts %s", l[1], len(rows), l[2])
		}
		for _, r := range rows {
			if !slices.Contains(c.want(), r[2]+" "+r[1]+" "+r[3]) {
				t.Errorf("%s lists %s %s %s, not a change made", l[1], r[2], r[1], r[3])
			}
			seen++
		}
	}
	if seen != 5 {
		t.Errorf("the counts' pages list %d records, want the 5 changed", seen)
	}
	checkPaged(t, c)
}

// checkPaged checks that the changes page, two a page, lists the five
// changes over three pages, in order, linked from one to the next.
func checkPaged(t *testing.T, c *changedStore) {
	t.Helper()
	srv := c.serveWith(t, func(o *Options) { o.PageSize = 2 })
	var ids []string
	path := "/changes"
	for n := 1; path != ""; n++ {
		page := do(t, srv, call{path: path}).body
		rows := changeRowRE.FindAllStringSubmatch(page, -1)
		if len(rows) > 2 || n > 3 {
			t.Fatalf("page %d of two a page: %d rows", n, len(rows))
		}
		for _, r := range rows {
			ids = append(ids, r[2]+" "+r[1]+" "+r[3])
		}
		path = ""
		if m := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(page); m != nil {
			path = html.UnescapeString(m[1])
		}
	}
	if want := c.want(); !slices.Equal(ids, want) {
		t.Errorf("the changes, two a page:\n%q, want\n%q", ids, want)
	}
	for _, bad := range []string{"/changes?op=upsert", "/changes?table=nope", "/api/changes?page=0"} {
		if a := do(t, srv, call{path: bad}); a.status != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", bad, a.status)
		}
	}
	if a := do(t, srv, call{path: "/api/changes?snapshot=2000-01-01T000000Z"}); a.status != http.StatusNotFound {
		t.Errorf("the changes of a snapshot history does not hold: %d, want 404", a.status)
	}
}

// The record page shows the record's versions oldest first, an update's
// field old → new; a deleted record's page (the latest snapshot holds it
// no longer) shows its versions and the deletion, an inserted one's its
// insert; the API gives the same timeline.
func TestTheRecordPageShowsItsTimeline(t *testing.T) {
	t.Parallel()
	c := newChangedStore(t)
	srv := c.serve(t, "")
	page := do(t, srv, call{path: "/entities/customer/" + c.name}).body
	started := strings.Count(page, `<strong class="began">Held when history began</strong>`)
	updated := strings.Index(page, `<strong class="began">Updated</strong>`)
	row := fmt.Sprintf(`<tr><th>FullName</th><td class="old">%s</td><td class="arrow">→</td><td class="new">%s</td></tr>`,
		html.EscapeString(`"`+c.oldName+`"`), html.EscapeString(`"`+c.oldName+` Jr"`))
	if started != 1 || updated < strings.Index(page, "Held when history began") || !strings.Contains(page, row) || !strings.Contains(page, "<strong>current</strong>") {
		t.Errorf("customer %s's timeline: want its base version, then its update with\n%s\n%s", c.name, row, timelineOf(page))
	}
	gone := do(t, srv, call{path: "/entities/customer/" + c.deleted})
	if gone.status != http.StatusOK || !strings.Contains(gone.body, `id="absent"`) || !strings.Contains(gone.body, `<strong>Deleted</strong>`) {
		t.Errorf("the deleted customer's page: %d\n%s", gone.status, timelineOf(gone.body))
	}
	if p := do(t, srv, call{path: "/entities/customer/" + c.inserted}).body; !strings.Contains(p, `<strong class="began">Inserted</strong>`) {
		t.Errorf("the inserted customer's page:\n%s", timelineOf(p))
	}
	var v record.View
	getJSON(t, srv, "/api/entities/customer/"+c.name, &v)
	if len(v.Timeline) != 2 || v.Timeline[0].Began != "base" || v.Timeline[1].Began != "update" || v.Timeline[0].ValidTo == nil ||
		!v.Timeline[0].ValidTo.Equal(v.Timeline[1].ValidFrom) || v.Timeline[1].To != "" || len(v.Timeline[1].Changes) != 1 {
		b, _ := json.Marshal(v.Timeline)
		t.Errorf("the API's timeline of %s: %s", c.name, b)
	}
}

// timelineOf is the timeline section of a record page, for a message.
func timelineOf(page string) string {
	i := strings.Index(page, "<h2>Timeline</h2>")
	j := strings.Index(page, "<h2>Findings across history</h2>")
	if i < 0 || j < i {
		return "(no timeline)"
	}
	return page[i:j]
}

// A change whose value is HTML, far longer than a snippet and holds
// control characters, and a field whose name holds control characters
// and HTML, are shown escaped and cut, on the record page, in the
// changes list and in the API.
func TestAHostileChangeIsEscapedAndCut(t *testing.T) {
	t.Parallel()
	c := newChangedStore(t)
	srv := c.serve(t, "")
	page := timelineOf(do(t, srv, call{path: "/entities/customer/" + c.email}).body)
	length := regexp.MustCompile(`… \((\d+) characters\)</td>`).FindStringSubmatch(page)
	if strings.Contains(page, "<script>") || strings.Contains(page, "\x1b") || strings.Contains(page, "\u202e") ||
		strings.Contains(page, strings.Repeat("x", 100)) || !strings.Contains(page, "&lt;script&gt;alert(2)") ||
		!strings.Contains(page, `\u202e`) || length == nil || atoi(length[1]) < len([]rune(hostileEmail)) {
		t.Errorf("the hostile Email's change, want it escaped and cut, saying its length (at least %d):\n%s", len([]rune(hostileEmail)), page)
	}
	escaped := html.EscapeString(`Note\x1b]0;pwned\x07<i>`)
	page = timelineOf(do(t, srv, call{path: "/entities/customer/" + c.field}).body)
	if strings.Contains(page, "\x1b") || strings.Contains(page, "\x07") || strings.Contains(page, "<i>") || !strings.Contains(page, "<th>"+escaped+"</th>") {
		t.Errorf("the hostile field's name, want %s:\n%s", escaped, page)
	}
	list := do(t, srv, call{path: "/changes?op=update"}).body
	if strings.Contains(list, "\x1b") || strings.Contains(list, "<i>") || !strings.Contains(list, escaped) {
		t.Errorf("the changes list shows the hostile field's name unescaped, or not at all")
	}
	var v record.View
	getJSON(t, srv, "/api/entities/customer/"+c.email, &v)
	if ch := v.Timeline[len(v.Timeline)-1].Changes; len(ch) != 1 || len([]rune(ch[0].New)) > record.SnippetRunes+40 || strings.ContainsRune(ch[0].New, '\x1b') {
		t.Errorf("the API's hostile change: %+v", ch)
	}
}

// atoi is s as a number, 0 when it is none.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
