package journal

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/billsnap/billsnap/internal/jsonl"
	"github.com/billsnap/billsnap/internal/snip"
)

// Delivery results.
const (
	DeliverySent   = "sent"
	DeliveryFailed = "failed" // every attempt failed
	DeliveryNoted  = "noted"  // not sent (the target does not take the event), recorded so that it is not judged again
	DeliveryPruned = "pruned" // no delivery: the counts of those retention removed (Pruned)
)

// The events whose deliveries carry findings: the material ones a target
// was told of, those it was told are resolved, and those it was told are
// overdue (each "key@due": a finding once per due date).
const (
	EventMaterial = "material"
	EventResolved = "resolved"
	EventOverdue  = "overdue"
)

// Delivery is one notification to one target, as recorded in
// DIR/.billsnap/notifications.jsonl: what was sent (or failed), when, and
// what it was about, which is how no event is sent twice.
type Delivery struct {
	Time     time.Time `json:"time"`
	Target   string    `json:"target"` // the target's name, never its URL
	Event    string    `json:"event"`  // material, failure, stale, resolved, overdue, test
	Key      string    `json:"key"`    // what makes two events the same: a run's ID, a snapshot's
	Findings []string  `json:"findings,omitempty"`
	Result   string    `json:"result"` // DeliverySent, DeliveryFailed or DeliveryNoted
	Attempts int       `json:"attempts,omitempty"`
	Error    string    `json:"error,omitempty"`
	// Message is what a failed delivery was to say, so that a later run
	// can send it again.
	Message json.RawMessage `json:"message,omitempty"`
	// Pruned are, on a line of result DeliveryPruned, how many
	// deliveries retention removed, by target, event and result.
	Pruned []DeliveryCount `json:"pruned,omitempty"`
	// Folded marks a noted delivery that retention made of those it
	// removed (what they had announced).
	Folded bool `json:"folded,omitempty"`
}

// DeliveryCount is how many deliveries to Target of Event had Result.
type DeliveryCount struct {
	Target string `json:"target"`
	Event  string `json:"event"`
	Result string `json:"result"`
	Count  int    `json:"count"`
}

// Deliveries is the record of the notifications of a store.
type Deliveries struct{ file jsonl.File }

// DeliveriesIn is the record kept in the file at path
// (layout.Dir.Notifications).
func DeliveriesIn(path string) Deliveries { return Deliveries{jsonl.File{Path: path}} }

// List is every delivery, oldest first; a line that does not parse is
// left out.
func (d Deliveries) List() ([]Delivery, error) {
	lines, err := d.file.Lines()
	if err != nil {
		return nil, fmt.Errorf("notifications record: %w", err)
	}
	out := make([]Delivery, 0, len(lines))
	for _, l := range lines {
		var x Delivery
		if json.Unmarshal(l, &x) == nil {
			out = append(out, x)
		}
	}
	return out, nil
}

// Add appends x, synced, as one line of at most snip.Line bytes: its
// error is cut to a snippet (snip.JSON), and a message that would make
// the line longer is not kept (only failures and stale events, which
// are short, are sent again from it).
func (d Deliveries) Add(x Delivery) error {
	x.Error = snip.JSON(x.Error, ErrorLen/2)
	line, err := json.Marshal(x)
	if err == nil && len(line) > snip.Line {
		x.Message = nil
		line, err = json.Marshal(x)
	}
	if err != nil {
		return err
	}
	return d.file.Append(func([][]byte) ([]byte, error) { return line, nil })
}
