package main

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

	"github.com/billsnap/billsnap/cmd/internal/readonly"
	"github.com/billsnap/billsnap/internal/csvsafe"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// changesAbout is what changes --help says under its usage line.
const changesAbout = `Prints what changed in the service's records between two moments: each
record inserted, updated (with the fields that changed, old -> new) or
deleted, from the store's history, which only complete snapshots move.
By default the latest complete snapshot against the one before. --since and
--until take a snapshot ID or a time (2026-11-01, 2026-11-01T12:00:00Z): the
tables as they stood then, as the complete snapshot of that moment had them.
A record that changed and changed back in between is not listed.
`

// runChanges prints the changes between two moments of the store's
// history (readmodel.ChangesBetween).
func runChanges(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "changes", "[--since SNAPSHOT|TIME] [--until SNAPSHOT|TIME] [--table T] [--id ID] [--format text|json|csv] [store flags]")
	fs.about = changesAbout
	sf := addStoreFlags(fs)
	since := fs.String("since", "", "from this snapshot ID or time (default: the complete snapshot before --until)")
	until := fs.String("until", "", "to this snapshot ID or time (default: the latest complete snapshot)")
	table := fs.String("table", "", "only this table's records (customers, invoices, …)")
	id := fs.String("id", "", "only the record with this ID")
	format := fs.String("format", "text", "text (grouped by table), json (an array of objects) or csv")
	if rest, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usage.Errorf("changes takes no arguments, only flags (%q)", rest[0])
	}
	if !slices.Contains([]string{"text", "json", "csv"}, *format) {
		return usage.Errorf("--format %q: want text, json or csv", *format)
	}
	db, err := openToRead(ctx, env, sf)
	if err != nil {
		return err
	}
	defer db.Close()
	if *table != "" {
		if err := knownTable(ctx, db, *table); err != nil {
			return err
		}
	}
	span, err := resolveSpan(ctx, db, *since, *until)
	if err != nil {
		return err
	}
	list, err := readmodel.ChangesBetween(ctx, db, span.from.At, span.to.At, readmodel.ChangeFilter{Table: *table, ID: *id})
	if err != nil {
		return err
	}
	return printChanges(env.stdout, *format, span, list)
}

// openToRead opens the store's read model for a command that only
// reads, locked down as query's (readonly.LockDown).
func openToRead(ctx context.Context, env *cliEnv, sf *storeFlags) (*sql.DB, error) {
	cfg, err := sf.load(env)
	if err != nil {
		return nil, err
	}
	if err := sf.requireStore(cfg); err != nil {
		return nil, err
	}
	db, err := openRead(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := readonly.LockDown(ctx, db, cfg.Out); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// knownTable is a usage error naming the tables when table is none of
// the store's.
func knownTable(ctx context.Context, db *sql.DB, table string) error {
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_views() WHERE view_name = ? AND NOT internal", table+"_history").Scan(&n)
	if err != nil || n > 0 {
		return err
	}
	return usage.Errorf("--table %q is not a table of the store (customers, invoices, invoice_lines, subscription_charges, …: billsnap query --tables lists them)", termsafe.FirstLine(table))
}

// span is the two moments changes compares: the snapshots that stood
// then, at the times asked for.
type span struct{ from, to readmodel.HistorySnapshot }

// resolveSpan resolves --since and --until against history's snapshots:
// by default the latest and the one before it. A moment before the
// first snapshot, or an ID no snapshot has, is a usage error naming the
// nearest snapshots.
func resolveSpan(ctx context.Context, db *sql.DB, since, until string) (span, error) {
	snaps, err := readmodel.HistorySnapshots(ctx, db)
	if err != nil {
		return span{}, err
	}
	if len(snaps) == 0 {
		return span{}, usage.Errorf("the store has no history yet: history starts with the first complete snapshot this billsnap publishes (run billsnap export)")
	}
	var s span
	if s.to, err = moment(snaps, until, "--until", snaps[len(snaps)-1]); err != nil {
		return s, err
	}
	def := s.to
	if i := slices.IndexFunc(snaps, func(h readmodel.HistorySnapshot) bool { return h.ID == s.to.ID }); i > 0 {
		def = snaps[i-1]
	}
	if s.from, err = moment(snaps, since, "--since", def); err != nil {
		return s, err
	}
	if s.from.At.After(s.to.At) {
		return s, usage.Errorf("--since (%s) is after --until (%s)", s.from.At.Format(time.RFC3339), s.to.At.Format(time.RFC3339))
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
	t, ok := parseMoment(value)
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

// parseMoment reads a time as RFC 3339, or a date (its start, UTC).
func parseMoment(v string) (time.Time, bool) {
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

// printChanges prints list in format.
func printChanges(w io.Writer, format string, s span, list []readmodel.Change) error {
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
