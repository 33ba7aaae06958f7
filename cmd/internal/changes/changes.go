// Package changes resolves the moments billsnap changes compares and prints
// what changed between them.
//
// [Resolve] resolves the two moments against the store's history: each a
// snapshot ID or a time, by default the latest snapshot against the one
// before it. A moment before the history, or an ID no snapshot has, is a
// usage error naming the nearest snapshots. [ParseMoment] parses a time,
// as query --as-of does too.
//
// [Print] prints the changes as text grouped by table (an update's fields
// as old -> new, values as escaped snippets), as JSON with exactly six
// keys per change, or as CSV neutralised for spreadsheets; [CheckFormat]
// checks the format first.
package changes

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/internal/csvsafe"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// CheckFormat is a usage error, naming the flag's value, when format is
// none Print prints: text, json or csv.
func CheckFormat(format string) error {
	if !slices.Contains([]string{"text", "json", "csv"}, format) {
		return usage.Errorf("--format %q: want text, json or csv", termsafe.FirstLine(format))
	}
	return nil
}

// Span is the two moments changes compares: the snapshots that stood
// then, at the times asked for.
type Span struct{ From, To readmodel.HistorySnapshot }

// Resolve resolves --since and --until against history's snapshots:
// by default the latest and the one before it. A moment before the
// first snapshot, or an ID no snapshot has, is a usage error naming the
// nearest snapshots.
func Resolve(ctx context.Context, db *sql.DB, since, until string) (Span, error) {
	snaps, err := readmodel.HistorySnapshots(ctx, db)
	if err != nil {
		return Span{}, err
	}
	if len(snaps) == 0 {
		return Span{}, usage.Errorf("the store has no history yet: history starts with the first complete snapshot this billsnap publishes (run billsnap export)")
	}
	var s Span
	if s.To, err = moment(snaps, until, "--until", snaps[len(snaps)-1]); err != nil {
		return s, err
	}
	def := s.To
	if i := slices.IndexFunc(snaps, func(h readmodel.HistorySnapshot) bool { return h.ID == s.To.ID }); i > 0 {
		def = snaps[i-1]
	}
	if s.From, err = moment(snaps, since, "--since", def); err != nil {
		return s, err
	}
	if s.From.At.After(s.To.At) {
		return s, usage.Errorf("--since (%s) is after --until (%s)", s.From.At.Format(time.RFC3339), s.To.At.Format(time.RFC3339))
	}
	return s, nil
}

// moment resolves the value of flag: a snapshot ID of history, or a time
// at or after the first snapshot's; def when the value is "". The
// snapshot is the one that stood then, At the time asked for.
func moment(snaps []readmodel.HistorySnapshot, value, flag string, def readmodel.HistorySnapshot) (readmodel.HistorySnapshot, error) {
	if value == "" {
		return def, nil
	}
	for _, h := range snaps {
		if h.ID == value {
			return h, nil
		}
	}
	t, ok := ParseMoment(value)
	if !ok {
		return readmodel.HistorySnapshot{}, usage.Errorf("%s %q is neither a snapshot of the store's history nor a time (2026-11-01 or 2026-11-01T12:00:00Z); %s",
			flag, termsafe.FirstLine(value), nearest(snaps, value))
	}
	if t.Before(snaps[0].At) {
		return readmodel.HistorySnapshot{}, usage.Errorf("%s %s is before the store's history, which starts with snapshot %s at %s",
			flag, t.Format(time.RFC3339), snaps[0].ID, snaps[0].At.Format(time.RFC3339))
	}
	stood := snaps[0]
	for _, h := range snaps {
		if !h.At.After(t) {
			stood = h
		}
	}
	return readmodel.HistorySnapshot{ID: stood.ID, At: t}, nil
}

// ParseMoment reads a time as RFC 3339, or a date (its start, UTC).
func ParseMoment(v string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// nearest names the snapshots of history nearest to value: those whose
// IDs sort just before and after it, or the first and the last.
func nearest(snaps []readmodel.HistorySnapshot, value string) string {
	i, _ := slices.BinarySearchFunc(snaps, value, func(h readmodel.HistorySnapshot, v string) int { return strings.Compare(h.ID, v) })
	var near []string
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(snaps) {
			near = append(near, snaps[j].ID)
		}
	}
	return fmt.Sprintf("the nearest snapshots are %s (of %s, %s to %s)", strings.Join(near, " and "),
		plural.Of(len(snaps), "snapshot"), snaps[0].ID, snaps[len(snaps)-1].ID)
}

// Print prints list in format: text, json or csv.
func Print(w io.Writer, format string, s Span, list []readmodel.Change) error {
	switch format {
	case "json":
		return changesJSON(w, list)
	case "csv":
		return changesCSV(w, list)
	}
	return changesText(w, s, list)
}

// changeJSON is a change as --format json prints it.
type changeJSON struct {
	Table        string   `json:"table"`
	ID           string   `json:"id"`
	Op           string   `json:"op"`
	Fields       []string `json:"fields"`
	FromSnapshot string   `json:"from_snapshot"`
	ToSnapshot   string   `json:"to_snapshot"`
}

func changesJSON(w io.Writer, list []readmodel.Change) error {
	out := make([]changeJSON, len(list))
	for i, c := range list {
		out[i] = changeJSON{Table: c.Table, ID: c.ID, Op: c.Op, Fields: c.Fields, FromSnapshot: c.From, ToSnapshot: c.To}
		if out[i].Fields == nil {
			out[i].Fields = []string{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func changesCSV(w io.Writer, list []readmodel.Change) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"table", "id", "op", "fields", "from_snapshot", "to_snapshot", "at", "old_values", "new_values"})
	for _, c := range list {
		cw.Write([]string{c.Table, csvsafe.Text(c.ID), c.Op, csvsafe.Text(strings.Join(c.Fields, ";")), c.From, c.To,
			c.At.UTC().Format(time.RFC3339), csvsafe.Text(c.OldValues), csvsafe.Text(c.NewValues)})
	}
	cw.Flush()
	return cw.Error()
}
