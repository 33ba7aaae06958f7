package sandbox

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/billsnap/billsnap/sandbox/variants"
)

// Config is everything a sandbox starts with.
type Config struct {
	Data   Options
	APIKey string  // the key clients must send, Base64-encoded, as a Bearer token
	Faults *Faults // nil injects nothing
}

// Sandbox is the billing service in memory. Its Handler serves base_url
// (/v3/…) and front_url (the paged lists) on one origin, so base_url and
// front_url are the same address. It is safe for concurrent use.
type Sandbox struct {
	mu    sync.RWMutex
	opts  Options
	data  *Dataset
	lists map[string]*list // by lower-case list name

	history []map[string]TableKey // table keys before and after each drift

	key    string
	faults *Faults
	vary   *variants.Variator // nil: no field is sent otherwise than docs/fields.md assumes

	rngMu sync.Mutex
	rng   *rand.Rand // fault dice and IDs of records created after start

	requests atomic.Int64
	refused  atomic.Int64
}

// New generates the sandbox's data from cfg.Data.
func New(cfg Config) *Sandbox {
	d := Generate(cfg.Data)
	s := &Sandbox{opts: cfg.Data, data: d, lists: map[string]*list{}, key: cfg.APIKey, faults: cfg.Faults,
		rng: rand.New(rand.NewPCG(cfg.Data.Seed, 0x5bd1e995))}
	if s.faults == nil {
		s.faults, _ = ParseFaults("")
	}
	for _, def := range listDefs {
		s.lists[strings.ToLower(def.name)] = newList(def, d)
	}
	if s.vary = variants.New(&s.faults.Variants, cfg.Data.Seed, variantLists(s.lists)); s.vary != nil {
		for _, l := range s.lists {
			l.vary = s.vary
			for i := range l.recs {
				l.reencode(i)
			}
		}
	}
	return s
}

// Dataset is the data as generated; changes made later through the API or
// by faults are in the served lists only.
func (s *Sandbox) Dataset() *Dataset { return s.data }

// Now is the service clock the data was generated against.
func (s *Sandbox) Now() time.Time { return s.data.Now }

// Requests counts the requests served so far, refused ones included.
func (s *Sandbox) Requests() int64 { return s.requests.Load() }

// Refused counts the answers in the 4xx range the sandbox gave of its own
// accord: no such resource, a wrong method, a bad key or header, a bad
// parameter (a wrong page or cursor). The 4xx answers of injected faults
// (429, echo) are not counted.
func (s *Sandbox) Refused() int64 { return s.refused.Load() }

// refuse sends e and counts it when its status is in the 4xx range.
func (s *Sandbox) refuse(w http.ResponseWriter, r *http.Request, e *apiError) {
	if st := e.httpStatus(); st >= 400 && st < 500 {
		s.refused.Add(1)
	}
	writeError(w, r, e)
}

// roll returns a uniform number in [0, 1).
func (s *Sandbox) roll() float64 {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return s.rng.Float64()
}

// newID returns a GUID for a record created after start.
func (s *Sandbox) newID() string {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return newGUID(s.rng)
}

// variantLists are lists as a variants.Variator knows them.
func variantLists(lists map[string]*list) map[string]variants.List {
	out := make(map[string]variants.List, len(lists))
	for name, l := range lists {
		out[name] = variants.List{Table: l.table, IDs: l.ids}
	}
	return out
}

// FieldKey is what the sandbox sent of one field of an export table
// (variants.FieldKey).
type FieldKey = variants.FieldKey

// FieldKeys is what the sandbox sends of each field of each export table
// now, by table and field as sent (a renamed field under its new name):
// the answer key of a client's counts. Product plans are counted as the
// export asks for them, with both nested lists expanded.
func (s *Sandbox) FieldKeys() map[string]map[string]FieldKey {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := variants.Tally{}
	for _, l := range s.lists {
		for _, r := range l.recs {
			b := encode(r)
			if p, ok := r.(*ProductPlan); ok {
				b, _ = json.Marshal(planView(p, true, true))
			}
			s.vary.Record(l.table, b, t)
		}
	}
	return t.Keys()
}
