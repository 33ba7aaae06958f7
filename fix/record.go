package fix

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/billsnap/billsnap/internal/jsonl"
)

// Events of the record.
const (
	EvSending  = "sending"  // written before the request leaves
	EvAnswered = "answered" // the service's answer
	EvUnknown  = "unknown"  // no answer, or a 5xx: the fate is unknown
	EvReadBack = "readback" // what a read found of an action whose fate was unknown
)

// Outcomes of an action.
const (
	Done        = "done"         // the service made the write
	AlreadyDone = "already-done" // it had been made before (422, Errorcode 85000)
	Failed      = "failed"       // the service refused it
	NotMade     = "not-made"     // a read found it not made
)

// Event is one line of the record: an action's request, answer or read.
type Event struct {
	At       time.Time `json:"at"`
	Plan     string    `json:"plan"` // the plan's digest
	Key      string    `json:"key"`  // Action.Key
	Event    string    `json:"event"`
	Method   string    `json:"method,omitempty"`
	URL      string    `json:"url,omitempty"`     // the key redacted
	Request  string    `json:"request,omitempty"` // the body sent
	Status   int       `json:"status,omitempty"`
	Response string    `json:"response,omitempty"` // the body answered, the key redacted
	Outcome  string    `json:"outcome,omitempty"`
	Note     string    `json:"note,omitempty"`
}

// Record is the record of writes.
type Record struct {
	file jsonl.File
	now  func() time.Time
}

// NewRecord is the record at path.
func NewRecord(path string, now func() time.Time) *Record {
	return &Record{file: jsonl.File{Path: path}, now: now}
}

// Add appends e, stamped, synced before it returns.
func (r *Record) Add(e Event) error {
	e.At = r.now().UTC()
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := r.file.Append(func([][]byte) ([]byte, error) { return line, nil }); err != nil {
		return fmt.Errorf("the record of writes: %w", err)
	}
	return nil
}

// Events are every event of the plan with the given digest, oldest first.
func (r *Record) Events(plan string) ([]Event, error) {
	lines, err := r.file.Lines()
	if err != nil {
		return nil, fmt.Errorf("the record of writes: %w", err)
	}
	var out []Event
	for n, l := range lines {
		var e Event
		if err := json.Unmarshal(l, &e); err != nil {
			return nil, fmt.Errorf("the record of writes %s line %d: %w", r.file.Path, n+1, err)
		}
		if e.Plan == plan {
			out = append(out, e)
		}
	}
	return out, nil
}

// state is where an action stands after the events recorded for it.
type state int

const (
	untouched state = iota
	made            // done or already done
	refused         // the service refused it: it may be sent again
	uncertain       // sent, and no answer recorded, or an unknown fate not yet read back
)

// states folds a plan's events into each action's state.
func states(events []Event) map[string]state {
	out := map[string]state{}
	for _, e := range events {
		switch {
		case e.Outcome == Done || e.Outcome == AlreadyDone:
			out[e.Key] = made
		case out[e.Key] == made:
		case e.Event == EvSending || e.Event == EvUnknown:
			out[e.Key] = uncertain
		case e.Outcome == Failed || e.Outcome == NotMade:
			out[e.Key] = refused
		}
	}
	return out
}
