package ledger

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/billsnap/billsnap/internal/jsonl"
)

// BenchmarkWaiveOnALedgerOf times one waiver made on a ledger that holds
// n entries already (a year of a busy workspace is some thousands), and
// the chain's verification of it, to show how they grow with the ledger.
func BenchmarkWaiveOnALedgerOf(b *testing.B) {
	for _, n := range []int{100, 20_000} {
		l := testLedger(b)
		raw := jsonl.File{Path: l.Path()} // the lines as an earlier billsnap left them, no head recorded
		if err := raw.Append(func([][]byte) ([]byte, error) { return ledgerOf(b, n), nil }); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("waive/%d", n), func(b *testing.B) {
			for i := range b.N {
				w := aWaiver()
				w.EntityID = fmt.Sprintf("d%d", i)
				if _, err := l.Waive(alice, w); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("verify/%d", n), func(b *testing.B) {
			for range b.N {
				if _, err := l.Verify(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ledgerOf is the bytes of a chained ledger of n waivers, its last newline
// left for Append to add.
func ledgerOf(b *testing.B, n int) []byte {
	var out []byte
	prev := Genesis
	for i := range n {
		w := aWaiver()
		w.EntityID, w.ID = fmt.Sprintf("c%d", i), fmt.Sprintf("W%d", i+1)
		body, err := json.Marshal(Entry{Seq: i + 1, By: "alice", Action: ActWaive, Waiver: &w, Prev: prev})
		if err != nil {
			b.Fatal(err)
		}
		line := seal(body)
		prev = lastHash(line)
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, line...)
	}
	return out
}
