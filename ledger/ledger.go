// Package ledger is the record of what finance does in the workspace:
// waivers made and lifted, findings assigned, flux lines explained,
// sign-offs, periods closed and reopened, and the entries written after a
// close marked as its post-close adjustments. It is one append-only file
// of JSON lines in DIR/.billsnap/ledger.jsonl, each line an audit record
// (who, when, from where, what), chained to the line before it by its
// hash (chain.go). Nothing is ever rewritten: a waiver is lifted by a
// later line, a sign-off, once written, stays as it is, and a closed
// period is reopened by a line of its own. (A ledger written before the
// chain is chained once, from its first line, its bytes kept, by Chain
// alone: no write chains.)
//
// Writers append under an exclusive lock on the file (flock), each line
// synced, and the head recorded beside the file (head.go), before the
// lock is let go. A write is taken only after a ledger that verifies:
// chained, each line a valid entry, no half line at its end, reaching
// its recorded head; otherwise it is a *RefusedError and the file is left
// as it was. Readers take no lock and ignore a last line that has no
// newline yet, so no reader waits for a writer and a job that reads the
// waivers never waits for the workspace; a reader still refuses a line
// that is not a valid entry and a ledger that no longer reaches its head.
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

// Entry is one audited action, a link of the ledger's hash chain
// (chain.go).
type Entry struct {
	Seq     int       `json:"seq"`
	At      time.Time `json:"at"`
	By      string    `json:"by"`             // who, as they gave their name
	From    string    `json:"from,omitempty"` // the address the request came from
	Action  string    `json:"action"`         // one of the Act constants
	Waiver  *Waiver   `json:"waiver,omitempty"`
	Lift    string    `json:"lift,omitempty"` // the ID of the waiver lifted
	SignOff *SignOff  `json:"signoff,omitempty"`
	Close   *Close    `json:"close,omitempty"`
	Reopen  *Reopen   `json:"reopen,omitempty"`
	// Explanation is a line of a period's flux review explained.
	Explanation *Explanation `json:"explanation,omitempty"`
	// PostClose is the close an action comes after, while its period
	// stays closed: a post-close adjustment.
	PostClose string `json:"post_close,omitempty"`
	// Assign is an assign entry's assignments (assign.go).
	Assign []Assignment `json:"assignments,omitempty"`
	// Comment is a comment entry's line of a finding's thread (comment.go).
	Comment *Comment `json:"comment,omitempty"`
	// Resolution is a resolve entry's resolution (resolve.go).
	Resolution *Resolution `json:"resolution,omitempty"`
	// Auth is how By was established: "header" (a trusted proxy's),
	// "tokens" (a user's own token), "" as typed (unattributed).
	Auth string `json:"auth,omitempty"`
	// Allowed is the configuration key that let an unattributed write
	// through once the ledger held attributed ones
	// ("workspace.allow_unattributed"); "" otherwise.
	Allowed string `json:"allowed,omitempty"`
	Prev    string `json:"prev,omitempty"` // the hash of the line before (Genesis for the first)
	Hash    string `json:"hash,omitempty"` // the SHA-256 of this line up to this field
}

// Waiver is a waiver made in the workspace.
type Waiver struct {
	ID       string `json:"id"`
	Rule     string `json:"rule"`
	EntityID string `json:"entity_id"`
	Reason   string `json:"reason"`
	// ReasonCode is the code of the catalogue (worklist.reasons) the
	// waiver gives as why; "" for none (a waiver made before the
	// catalogue, or through the API without one).
	ReasonCode string `json:"reason_code,omitempty"`
	Owner      string `json:"owner"`
	Expires    string `json:"expires"` // YYYY-MM-DD
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
	Findings int              `json:"findings"` // open: neither resolved nor waived (findings.Finding.IsOpen); before 2026-11-29, waived included
	Digest   string           `json:"digest"`
	Totals   map[string]Total `json:"totals"`
}

// Total is a currency's net and gross total of the unwaived findings, as
// decimal strings.
type Total struct {
	Net   string `json:"net"`
	Gross string `json:"gross"`
}

// RefusedError is a write refused because the ledger as it stands does
// not verify (Err says where): no write is taken after a chain that does
// not hold, a line that is not a valid entry, a half last line or a
// ledger that no longer reaches its recorded head, so that no write
// blesses what was done to the file.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string {
	return e.Err.Error() + "; the ledger takes no write until it verifies: see billsnap ledger verify (a ledger from before the hash chain is chained by billsnap ledger chain)"
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Ledger is the ledger file at a path.
type Ledger struct {
	file    jsonl.File
	now     func() time.Time
	covered func(c Closed, rule, entityID string) bool
	cache   *parsed
}

// Covering tells the ledger which findings a close covers: covered
// reports whether the closed record of c holds the finding of rule about
// entityID. A waiver made or lifted of such a finding while c stands is
// then recorded as a post-close adjustment of c. Without it only
// sign-offs of a closed period are.
func (l *Ledger) Covering(covered func(c Closed, rule, entityID string) bool) { l.covered = covered }

// postClose is the close that entry e adjusts, given the state before it:
// a sign-off of a closed period, or a waiver of a finding a standing
// close covers. "" when it adjusts none.
func (l *Ledger) postClose(st State, e *Entry) string {
	var rule, entity string
	switch {
	case e.Waiver != nil:
		rule, entity = e.Waiver.Rule, e.Waiver.EntityID
	case e.Lift != "":
		w, _ := st.Waiver(e.Lift)
		rule, entity = w.Rule, w.EntityID
	}
	for _, c := range st.StandingCloses() {
		if e.SignOff != nil && e.SignOff.Period == c.Period || e.Explanation != nil && e.Explanation.Period == c.Period {
			return c.ID
		}
		if rule != "" && l.covered != nil && l.covered(c, rule, entity) {
			return c.ID
		}
	}
	return ""
}

// New is the ledger at path; now stamps the entries.
func New(path string, now func() time.Time) *Ledger {
	l := &Ledger{now: now, cache: &parsed{}}
	l.file = jsonl.File{Path: path, Whole: true, Synced: l.record}
	return l
}

// Path is the ledger's file.
func (l *Ledger) Path() string { return l.file.Path }

// Read returns every entry, oldest first. A missing file is an empty
// ledger; a last line without its newline is a write in progress and is
// left out. A line that is not a valid entry of its action is an error
// (*MalformedError), and so is a ledger that no longer reaches its
// recorded head (*HeadError); the chain itself is Verify's to check.
func (l *Ledger) Read() ([]Entry, error) {
	_, entries, err := l.ReadLines()
	return entries, err
}

// ReadLines returns every complete line, as written, and its entry, from
// one read of the file, as Read does.
func (l *Ledger) ReadLines() ([][]byte, []Entry, error) {
	m, marked, err := l.mark() // before the lines: a write records its head after its line
	if err != nil {
		return nil, nil, err
	}
	lines, err := l.file.Lines()
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: %w", err)
	}
	entries, _, err := l.cache.of(lines, l.file.Path)
	if err != nil {
		return nil, nil, err
	}
	if marked {
		if _, err := m.reaches(l.file.Path, lines); err != nil {
			return nil, nil, err
		}
	}
	return lines, entries, nil
}

// ParseLines reads lines, path naming them in errors, into entries, each
// checked as its action's entry: a line that is not JSON is an error
// naming it, one that lacks what its action records a *MalformedError.
// It does not check the chain (VerifyLines does).
func ParseLines(path string, lines [][]byte) ([]Entry, error) { return parse(lines, path, 0) }

// parse reads lines into entries, each checked as its action's entry; the
// first is line first+1 of the file.
func parse(lines [][]byte, path string, first int) ([]Entry, error) {
	out := make([]Entry, 0, len(lines))
	for n, line := range lines {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("ledger %s line %d: %w", path, first+n+1, err)
		}
		if why := e.check(); why != "" {
			return nil, &MalformedError{Path: path, Line: first + n + 1, Seq: e.Seq, Why: why}
		}
		out = append(out, e)
	}
	return out, nil
}

// trusted gives the entries of lines, the ledger under a writer's lock,
// when a write may follow them: every line a valid entry, the chain
// holding, the head recorded reached (no head yet: a store from before
// it, recorded by this write) and at most one line past it (a write cut
// short between its line and its head).
func (l *Ledger) trusted(lines [][]byte) ([]Entry, error) {
	entries, broken, err := l.cache.of(lines, l.file.Path)
	switch {
	case broken != nil:
		return nil, broken
	case err != nil:
		return nil, err
	}
	m, marked, err := l.mark()
	if err != nil || !marked {
		return entries, err
	}
	ahead, err := m.reaches(l.file.Path, lines)
	if err == nil && ahead > 1 {
		err = &HeadError{Path: l.file.Path, Why: fmt.Sprintf("%d lines follow its head recorded at %s (seq %d), and a write records its head: they were not written by billsnap (if they are genuine, removing %s makes the next write record the head again)",
			ahead, m.At.Format(time.RFC3339), m.Seq, l.headPath())}
	}
	return entries, err
}

// Append adds the entry decide returns, given every entry so far and
// their state (Fold), under the ledger's lock: decide sees what no other
// writer can change before the entry is written, so it can refuse a lift
// of a lifted waiver or give back an equal waiver already made. A nil entry with a nil error
// writes nothing. Seq and At are set here; the entry is synced to disk,
// and the head recorded, before Append returns it. A ledger that does not
// verify as it stands (trusted) is a *RefusedError, and nothing is
// written.
func (l *Ledger) Append(decide func(soFar []Entry, st State) (*Entry, error)) (*Entry, error) {
	var e *Entry
	err := l.file.Append(func(lines [][]byte) ([]byte, error) {
		entries, err := l.trusted(lines)
		if err != nil {
			return nil, &RefusedError{Err: err}
		}
		st := Fold(entries)
		if e, err = decide(entries, st); e == nil || err != nil {
			return nil, err
		}
		e.PostClose = l.postClose(st, e)
		e.Seq, e.At, e.Prev, e.Hash = nextSeq(entries), l.now().UTC(), Genesis, ""
		if len(lines) > 0 {
			e.Prev = lastHash(lines[len(lines)-1])
		}
		body, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		line := seal(body)
		e.Hash = lastHash(line)
		return line, nil
	})
	var partial *jsonl.PartialError
	if errors.As(err, &partial) {
		return nil, &RefusedError{Err: fmt.Errorf("ledger %w", err)}
	}
	if err != nil {
		var ledgerErr *InvalidError
		var refused *RefusedError
		if errors.As(err, &ledgerErr) || errors.As(err, &refused) || errors.Is(err, ErrNoWaiver) {
			return nil, err
		}
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return e, nil
}
