package changes

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/workspace/record"
)

// Filter is what the changes page lists: the changes into one
// snapshot of history ("" : the latest), of a table and an op ("" : any),
// one page of them.
type Filter struct {
	Snapshot, Table, Op string
	Page                int // from 1
}

// parseFilter reads a Filter from a query string, refusing a
// table not of the catalogue, an op not of the feed's and a bad page.
func parseFilter(q url.Values) (Filter, error) {
	f := Filter{Snapshot: q.Get("snapshot"), Table: q.Get("table"), Op: q.Get("op"), Page: 1}
	if _, err := catalog.TableNamed(f.Table); f.Table != "" && err != nil {
		return f, fmt.Errorf("table %q: not one of the store's tables", f.Table)
	}
	if f.Op != "" && !slices.Contains(readmodel.Ops(), f.Op) {
		return f, fmt.Errorf("op %q: want insert, update or delete", f.Op)
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return f, fmt.Errorf("page %q: want a number from 1", p)
		}
		f.Page = n
	}
	return f, nil
}

// Query is f's query string, its page the first.
func (f Filter) Query() template.URL {
	u := string(f.url(1))
	return template.URL(u[len("/changes?"):])
}

// url is the changes page of f, with page n.
func (f Filter) url(n int) template.URL {
	v := url.Values{}
	for k, val := range map[string]string{"snapshot": f.Snapshot, "table": f.Table, "op": f.Op} {
		if val != "" {
			v.Set(k, val)
		}
	}
	if n > 1 {
		v.Set("page", strconv.Itoa(n))
	}
	return template.URL("/changes?" + v.Encode())
}

// errNoStep is a snapshot history holds no step of.
var errNoStep = errors.New("no step of history")

// stepOf is the step of history of snapshot snap ("" : the latest);
// errNoStep, wrapped with why, when there is none: an incomplete
// snapshot, or a store without history yet.
func stepOf(ctx context.Context, db *sql.DB, snap string) (readmodel.Step, error) {
	if ok, err := readmodel.Has(ctx, db, "history_snapshots"); err != nil || !ok {
		return readmodel.Step{}, cmpErr(err, fmt.Errorf("%w: the read model has no history yet (the next export publishes it)", errNoStep))
	}
	st, ok, err := readmodel.StepOf(ctx, db, snap)
	switch {
	case err != nil:
		return st, err
	case !ok && snap == "":
		return st, fmt.Errorf("%w: no complete snapshot has moved the store's history yet", errNoStep)
	case !ok:
		return st, fmt.Errorf("%w: snapshot %q moved no history (only a complete snapshot does)", errNoStep, snap)
	}
	return st, nil
}

// cmpErr is err, else alt.
func cmpErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

// Count is a table's count of one op in a step, and the page that
// lists them.
type Count struct {
	N   int64
	URL template.URL
}

// StepTable is a table's line in the overview's changes.
type StepTable struct {
	Table                      string
	Inserted, Updated, Deleted Count
	Base                       bool
}

// Step is a step of history as the overview shows it: its tables
// with a change, and how many others it left unchanged.
type Step struct {
	Snapshot, Previous string
	At                 time.Time
	Tables             []StepTable
	Unchanged          int
	Base               bool // every table's step was its base: no change yet
	Note               string
}

// stepLines is st as the overview shows it, each count a link to its
// records.
func stepLines(st readmodel.Step) *Step {
	v := &Step{Snapshot: st.Snapshot, Previous: st.Previous, At: st.At, Base: st.Previous == ""}
	link := func(t readmodel.TableChanges, op string, n int64) Count {
		return Count{N: n, URL: Filter{Snapshot: st.Snapshot, Table: t.Table, Op: op}.url(1)}
	}
	for _, t := range st.Tables {
		if t.Base || t.Inserted+t.Updated+t.Deleted == 0 {
			v.Unchanged++
			continue
		}
		v.Tables = append(v.Tables, StepTable{Table: t.Table, Inserted: link(t, readmodel.OpInsert, t.Inserted),
			Updated: link(t, readmodel.OpUpdate, t.Updated), Deleted: link(t, readmodel.OpDelete, t.Deleted)})
	}
	return v
}

// Overview is the latest complete snapshot's step for the
// overview; a store without one says why in its Note.
func Overview(ctx context.Context, db *sql.DB) (*Step, error) {
	st, err := stepOf(ctx, db, "")
	if errors.Is(err, errNoStep) {
		return &Step{Note: err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	return stepLines(st), nil
}

// Row is a change as the list shows it: the fields' names as
// snippets, and the record's page.
type Row struct {
	Table  string       `json:"table"`
	ID     string       `json:"id"`
	Op     string       `json:"op"`
	Fields []string     `json:"fields"`
	URL    template.URL `json:"-"`
}

// Page is the list of the changes into one snapshot.
type Page struct {
	F          Filter        `json:"-"`
	Snapshot   string        `json:"snapshot_id"`
	Previous   string        `json:"previous_snapshot_id"`
	At         time.Time     `json:"at"`
	Tables     []TableCounts `json:"tables"`
	Total      int           `json:"total"`
	Page       int           `json:"page"`
	Pages      int           `json:"pages"`
	First      int           `json:"-"`
	Changes    []Row         `json:"changes"`
	Prev, Next template.URL  `json:"-"`
	Ops        []string      `json:"-"`
	TableNames []string      `json:"-"`
}

// TableCounts are a table's counts in the API.
type TableCounts struct {
	Table    string `json:"table"`
	Inserted int64  `json:"inserted"`
	Updated  int64  `json:"updated"`
	Deleted  int64  `json:"deleted"`
	Base     bool   `json:"base"`
}

// Read reads the step and the page of changes query asks for, n changes
// a page, with the status of its error: 400 for a bad query, 404 for a
// snapshot history holds no step of.
func Read(ctx context.Context, db *sql.DB, query url.Values, n int) (*Page, int, error) {
	f, err := parseFilter(query)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	st, err := stepOf(ctx, db, f.Snapshot)
	if errors.Is(err, errNoStep) {
		return nil, http.StatusNotFound, err
	}
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	list, total, err := readmodel.ChangesInto(ctx, db, st.Snapshot, f.Table, f.Op, readmodel.Page{Limit: n, Offset: (f.Page - 1) * n})
	if err != nil {
		return nil, http.StatusInternalServerError, err
	}
	f.Snapshot = st.Snapshot
	return newPage(f, st, list, total, n), 0, nil
}

// newPage is page f.Page, of n changes a page, of the total
// changes of step st that f keeps; list is its changes.
func newPage(f Filter, st readmodel.Step, list []readmodel.Change, total, n int) *Page {
	p := &Page{F: f, Snapshot: st.Snapshot, Previous: st.Previous, At: st.At, Total: total, Page: f.Page,
		Pages: max((total+n-1)/n, 1), First: (f.Page-1)*n + 1, Changes: []Row{}, Ops: readmodel.Ops(), Tables: []TableCounts{}}
	for _, t := range st.Tables {
		p.Tables = append(p.Tables, TableCounts{Table: t.Table, Inserted: t.Inserted, Updated: t.Updated, Deleted: t.Deleted, Base: t.Base})
		p.TableNames = append(p.TableNames, t.Table)
	}
	for _, c := range list {
		p.Changes = append(p.Changes, rowOf(c))
	}
	if f.Page > 1 {
		p.Prev = f.url(f.Page - 1)
	}
	if f.Page < p.Pages {
		p.Next = f.url(f.Page + 1)
	}
	return p
}

// rowOf is c as the list shows it: its fields' names cut and
// escaped, its record's page (a deleted record's page shows its
// timeline).
func rowOf(c readmodel.Change) Row {
	row := Row{Table: c.Table, ID: c.ID, Op: c.Op, Fields: []string{},
		URL: template.URL("/entities/" + url.PathEscape(c.Table) + "/" + url.PathEscape(c.ID))}
	for _, f := range c.Fields {
		row.Fields = append(row.Fields, record.Snippet(f))
	}
	return row
}
