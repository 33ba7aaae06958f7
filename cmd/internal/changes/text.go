package changes

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// changesText prints list grouped by table, each with its counts, an
// update's fields as old -> new. Values from the service are escaped for
// a terminal and cut to a snippet.
func changesText(w io.Writer, s Span, list []readmodel.Change) error {
	fmt.Fprintf(w, "Changes from %s to %s: %s\n", momentText(s.From), momentText(s.To), plural.Of(len(list), "record"))
	if s.From.ID == s.To.ID {
		fmt.Fprintf(w, "Both moments stand on snapshot %s: nothing to compare.\n", s.From.ID)
		return nil
	}
	for start := 0; start < len(list); {
		end := start
		for end < len(list) && list[end].Table == list[start].Table {
			end++
		}
		printTableChanges(w, list[start:end])
		start = end
	}
	return nil
}

// momentText names a moment: its snapshot, and the time asked for when
// it is not the snapshot's own.
func momentText(h readmodel.HistorySnapshot) string {
	if strings.HasPrefix(h.ID, h.At.UTC().Format("2006-01-02T150405Z")) {
		return "snapshot " + h.ID
	}
	return fmt.Sprintf("%s (snapshot %s)", h.At.UTC().Format(time.RFC3339), h.ID)
}

// printTableChanges prints one table's changes, its counts first.
func printTableChanges(w io.Writer, list []readmodel.Change) {
	counts := map[string]int{}
	for _, c := range list {
		counts[c.Op]++
	}
	fmt.Fprintf(w, "\n%s: %d inserted, %d updated, %d deleted\n", list[0].Table, counts["insert"], counts["update"], counts["delete"])
	for _, c := range list {
		line := fmt.Sprintf("  %-6s  %s", c.Op, termsafe.String(c.ID))
		if c.Op == "update" {
			line += "  " + fieldChanges(c)
		}
		fmt.Fprintln(w, line)
	}
}

// fieldChanges is an update's fields as "Field: old -> new", each value a
// snippet.
func fieldChanges(c readmodel.Change) string {
	var old, new map[string]json.RawMessage
	json.Unmarshal([]byte(c.OldValues), &old)
	json.Unmarshal([]byte(c.NewValues), &new)
	parts := make([]string, len(c.Fields))
	for i, f := range c.Fields {
		parts[i] = fmt.Sprintf("%s: %s -> %s", termsafe.String(snippet(f)), valueText(old[f]), valueText(new[f]))
	}
	return strings.Join(parts, "; ")
}

// valueText is a JSON value as a snippet: absent is "(none)".
func valueText(v json.RawMessage) string {
	if len(v) == 0 {
		return "(none)"
	}
	return termsafe.String(snippet(string(v)))
}

// snippet cuts s to 60 characters, saying how long it was.
func snippet(s string) string {
	const most = 60
	r := []rune(s)
	if len(r) <= most {
		return s
	}
	return fmt.Sprintf("%s… (%d characters)", string(r[:most]), len(r))
}
