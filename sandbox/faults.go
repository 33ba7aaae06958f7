package sandbox

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/billsnap/billsnap/sandbox/variants"
)

// Faults says which failures the sandbox injects. Rates are probabilities
// per GET request; triggers fire on a page of a collection.
//
// The spec string of ParseFaults is a comma-separated list of name=value:
//
//	latency=20ms jitter=10ms         fixed delay, plus up to jitter more
//	500=0.05 502=0.01 503=0.01       rates of server errors (500 with a JSON
//	                                 error body, 502/503 with an HTML page)
//	429=0.02 retry-after=1s          rate of 429 Too Many Requests, its Retry-After
//	truncate=0.01 reset=0.01         rates of a body cut short, a TCP reset
//	html=0.01                        rate of an HTML page sent with 200 instead of JSON
//	loop=COLL@P                      page P's NextPage points back at page P-1 (P itself when 1)
//	foreign=COLL@P foreign-host=URL  page P's NextPage is on another host
//	totalcount=COLL@P                page P's TotalCount is one more than the truth
//	cut=COLL@P                       page P has no NextPage: the list ends there,
//	                                 cut short, while TotalCount counts every record
//	insert=COLL@P delete=COLL@P      after serving page P, a record is inserted
//	                                 at (deleted from) the front of the list
//	move=COLL@P                      after serving page P, the last record moves
//	                                 to the front (as an updated record does in a
//	                                 list ordered by last change): TotalCount
//	                                 stays, a record is listed twice, one never
//	oversize=COLL@P                  page P carries 101 records
//	endless=COLL                     the list never ends: every page has a
//	                                 NextPage, and a page past the last serves
//	                                 the first page's records again
//	claim=COLL@P                     page P's Paging claims a billion records
//	                                 (TotalCount) in ten million pages
//	echo=0.01                        rate of a 400 whose message repeats the
//	                                 request's Authorization header, as a
//	                                 gateway dumping the request might
//	keylink=COLL@P                   page P's NextPage carries the API key in
//	                                 its query (access_token=…)
//	cursor=COLL                      COLL's links carry an opaque cursor for
//	                                 their page (…&page=N&cursor=…), and a page
//	                                 past the first asked for without its
//	                                 cursor is refused with 400, as on a list
//	                                 paged by cursor
//	variants=0.3 untyped=0.02        fields sent in other JSON types, with and
//	rename=COLL.FIELD:NAME           without a lossless reading, renamed, or
//	set=COLL.FIELD@N:JSON            set on one record (see Variants)
//
// COLL is a list name on front_url (Customers, ProductPlans, …; case does
// not matter), which also covers its /v3 query endpoint. A trigger COLL@P
// fires once; COLL@P/N fires N times and COLL@P/0 every time; plain COLL
// fires on every page, every time.
type Faults struct {
	Latency, Jitter                 time.Duration
	Err500, Err502, Err503, TooMany float64
	RetryAfter                      time.Duration
	Truncate, Reset, HTML, Echo     float64
	Loop, Foreign, TotalCount, Cut  []*Trigger
	Insert, Delete, Move, Oversize  []*Trigger
	KeyLink, Endless, Claim         []*Trigger
	ForeignHost                     string
	Cursor                          []string          // lower-case list names paged by cursor
	Variants                        variants.Variants // fields sent otherwise than docs/fields.md assumes

	mu sync.Mutex
}

// Trigger is a fault bound to a page of a collection.
type Trigger struct {
	Collection string // lower-case list name
	Page       int    // 0: any page
	Times      int    // 0: no limit
	fired      int
}

// ParseFaults reads a fault spec (see Faults). The empty spec injects nothing.
func ParseFaults(spec string) (*Faults, error) {
	f := &Faults{RetryAfter: time.Second, ForeignHost: "http://billing.example.invalid"}
	for item := range strings.SplitSeq(spec, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("fault %q: want name=value", item)
		}
		if err := f.set(name, val); err != nil {
			return nil, fmt.Errorf("fault %q: %w", item, err)
		}
	}
	return f, nil
}

func (f *Faults) set(name, val string) error {
	if p := f.rate(name); p != nil {
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || v < 0 || v > 1 {
			return fmt.Errorf("want a rate from 0 to 1")
		}
		*p = v
		return nil
	}
	if p := f.triggers(name); p != nil {
		t, err := parseTrigger(val)
		*p = append(*p, t)
		return err
	}
	switch name {
	case "rename":
		r, err := variants.ParseRename(val)
		f.Variants.Renames = append(f.Variants.Renames, r)
		return err
	case "set":
		st, err := variants.ParseSet(val)
		f.Variants.Sets = append(f.Variants.Sets, st)
		return err
	case "latency", "jitter", "retry-after":
		d, err := time.ParseDuration(val)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration such as 20ms")
		}
		*map[string]*time.Duration{"latency": &f.Latency, "jitter": &f.Jitter, "retry-after": &f.RetryAfter}[name] = d
	case "cursor":
		if val == "" {
			return fmt.Errorf("want a list name")
		}
		f.Cursor = append(f.Cursor, strings.ToLower(val))
	case "foreign-host":
		f.ForeignHost = strings.TrimRight(val, "/")
	default:
		return fmt.Errorf("unknown fault %q", name)
	}
	return nil
}

func (f *Faults) rate(name string) *float64 {
	return map[string]*float64{"500": &f.Err500, "502": &f.Err502, "503": &f.Err503, "429": &f.TooMany,
		"truncate": &f.Truncate, "reset": &f.Reset, "html": &f.HTML, "echo": &f.Echo,
		"variants": &f.Variants.Coercible, "untyped": &f.Variants.Untyped}[name]
}

func (f *Faults) triggers(name string) *[]*Trigger {
	return map[string]*[]*Trigger{"loop": &f.Loop, "foreign": &f.Foreign, "totalcount": &f.TotalCount, "cut": &f.Cut,
		"insert": &f.Insert, "delete": &f.Delete, "move": &f.Move, "oversize": &f.Oversize, "keylink": &f.KeyLink,
		"endless": &f.Endless, "claim": &f.Claim}[name]
}

// parseTrigger reads COLL, COLL@P or COLL@P/N.
func parseTrigger(s string) (*Trigger, error) {
	coll, at, paged := strings.Cut(s, "@")
	t := &Trigger{Collection: strings.ToLower(coll)}
	if coll == "" {
		return t, fmt.Errorf("want COLL, COLL@PAGE or COLL@PAGE/TIMES")
	}
	if !paged {
		return t, nil
	}
	page, times, counted := strings.Cut(at, "/")
	t.Times = 1
	var err1, err2 error
	t.Page, err1 = strconv.Atoi(page)
	if counted {
		t.Times, err2 = strconv.Atoi(times)
	}
	if err1 != nil || err2 != nil || t.Page < 1 || t.Times < 0 {
		return t, fmt.Errorf("want COLL@PAGE/TIMES with PAGE ≥ 1 and TIMES ≥ 0")
	}
	return t, nil
}

// fire reports whether one of ts fires on page of coll, and counts it.
func (f *Faults) fire(ts []*Trigger, coll string, page int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range ts {
		if t.Collection != coll || (t.Page != 0 && t.Page != page) || (t.Times != 0 && t.fired >= t.Times) {
			continue
		}
		t.fired++
		return true
	}
	return false
}
