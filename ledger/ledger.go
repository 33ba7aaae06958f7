// Package ledger is the record of what finance does in the workspace:
// waivers made and lifted, periods signed off. It is one append-only file
// of JSON lines in DIR/.billsnap/ledger.jsonl, each line an audit record
// (who, when, from where, what). Nothing is ever rewritten: a waiver is
// lifted by a later line, and a sign-off, once written, stays as it is.
//
// Writers append under an exclusive lock on the file (flock), each line
// synced before the lock is let go; readers take no lock and ignore a last
// line that has no newline yet, so no reader waits for a writer and a job
// that reads the waivers never waits for the workspace.
package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/billsnap/billsnap/internal/jsonl"
)

// Actions an entry records.
const (
	ActWaive   = "waive"
	ActLift    = "lift"
	ActSignOff = "signoff"
)

// Entry is one audited action.
type Entry struct {
	Seq     int       `json:"seq"`
	At      time.Time `json:"at"`
	By      string    `json:"by"`             // who, as they gave their name
	From    string    `json:"from,omitempty"` // the address the request came from
	Action  string    `json:"action"`         // one of the Act constants
	Waiver  *Waiver   `json:"waiver,omitempty"`
	Lift    string    `json:"lift,omitempty"` // the ID of the waiver lifted
	SignOff *SignOff  `json:"signoff,omitempty"`
}

// Waiver is a waiver made in the workspace.
type Waiver struct {
	ID       string `json:"id"`
	Rule     string `json:"rule"`
	EntityID string `json:"entity_id"`
	Reason   string `json:"reason"`
	Owner    string `json:"owner"`
	Expires  string `json:"expires"` // YYYY-MM-DD
}

// SignOff is a period signed off: the reconciliation it closed, with its
// totals and a digest of its findings, so that a later change shows.
type SignOff struct {
	ID       string           `json:"id"`
	Snapshot string           `json:"snapshot_id"`
	Period   string           `json:"period"`
	Name     string           `json:"name"`
	Role     string           `json:"role"`
	Comment  string           `json:"comment"`
	Findings int              `json:"findings"`
	Digest   string           `json:"digest"`
	Totals   map[string]Total `json:"totals"`
}

// Total is a currency's net and gross total of the unwaived findings, as
// decimal strings.
type Total struct {
	Net   string `json:"net"`
	Gross string `json:"gross"`
}

// Ledger is the ledger file at a path.
type Ledger struct {
	file jsonl.File
	now  func() time.Time
}

// New is the ledger at path; now stamps the entries.
func New(path string, now func() time.Time) *Ledger {
	return &Ledger{file: jsonl.File{Path: path}, now: now}
}

// Read returns every entry, oldest first. A missing file is an empty
// ledger; a last line without its newline is a write in progress and is
// left out.
func (l *Ledger) Read() ([]Entry, error) {
	lines, err := l.file.Lines()
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return parse(lines, l.file.Path)
}

func parse(lines [][]byte, path string) ([]Entry, error) {
	out := make([]Entry, 0, len(lines))
	for n, line := range lines {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("ledger %s line %d: %w", path, n+1, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Append adds the entry decide returns, given every entry so far, under
// the ledger's lock: decide sees what no other writer can change before
// the entry is written, so it can refuse a lift of a lifted waiver or
// give back an equal waiver already made. A nil entry with a nil error
// writes nothing. Seq and At are set here; the entry is synced to disk
// before Append returns it.
func (l *Ledger) Append(decide func(soFar []Entry) (*Entry, error)) (*Entry, error) {
	var e *Entry
	err := l.file.Append(func(lines [][]byte) ([]byte, error) {
		entries, err := parse(lines, l.file.Path)
		if err != nil {
			return nil, err
		}
		if e, err = decide(entries); e == nil || err != nil {
			return nil, err
		}
		e.Seq, e.At = nextSeq(entries), l.now().UTC()
		return json.Marshal(e)
	})
	if err != nil {
		var ledgerErr *InvalidError
		if errors.As(err, &ledgerErr) || errors.Is(err, ErrNoWaiver) {
			return nil, err
		}
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return e, nil
}
