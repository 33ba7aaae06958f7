package workspace

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
)

// openOnOverview is what the overview says of its reconciliation's open
// findings: the header's count, and the rules table's Open column added up.
func openOnOverview(t *testing.T, page string) (header, rules int) {
	t.Helper()
	m := regexp.MustCompile(`· (?:<a [^>]*id="open-count"[^>]*>)?(\d+) open findings?`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the overview's header names no count of open findings:\n%s", page)
	}
	header, _ = strconv.Atoi(m[1])
	cell := regexp.MustCompile(`<td class="num">(\d+)</td>`)
	for _, seg := range strings.Split(page, `<tr class="rule-row"`)[1:] {
		c := cell.FindStringSubmatch(strings.Split(seg, "</tr>")[0])
		if c == nil {
			t.Fatalf("a line of the rules table without its Open: %s", seg)
		}
		n, _ := strconv.Atoi(c[1])
		rules += n
	}
	return header, rules
}

// journaled is the open findings the journal's newest reconcile run
// recorded, which billsnap status shows.
func journaled(t *testing.T, fx *fixture) int {
	t.Helper()
	runs, err := journal.Newest(layout.Dir(fx.cfg.Out).Runs(), 1, time.Now())
	if err != nil || len(runs) != 1 || runs[0].Findings == nil {
		t.Fatalf("the journal's newest run: %+v, %v", runs, err)
	}
	return *runs[0].Findings
}
