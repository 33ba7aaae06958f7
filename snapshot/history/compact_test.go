package history

import (
	"fmt"
	"slices"
	"testing"
)

// steps are runs of their own files, steps first to first+n-1.
func steps(first, n int) []run {
	var out []run
	for i := first; i < first+n; i++ {
		out = append(out, run{steps: []string{fmt.Sprintf("s%03d", i)}})
	}
	return out
}

// packOf is a pack of steps first to first+n-1.
func packOf(first, n int) run {
	r := run{}
	for _, s := range steps(first, n) {
		r.steps = append(r.steps, s.steps[0])
	}
	r.pack = packPrefix + r.steps[0] + "--" + r.steps[n-1]
	return r
}

// Plan merges as a counter in base PackFanIn carries, each merge written
// once however many classes it climbs: the sizes of the packs it writes,
// and the runs each takes.
func TestPlanCarriesLikeACounter(t *testing.T) {
	for _, c := range []struct {
		name string
		runs []run
		want []string // each merge: its steps, and the runs it takes
	}{
		{"three steps", steps(0, 3), nil},
		{"four steps", steps(0, 4), []string{"4 steps from 4 runs"}},
		{"five steps", steps(0, 5), []string{"4 steps from 4 runs"}},
		{"sixteen steps at once (a store's history built)", steps(0, 16), []string{"16 steps from 16 runs"}},
		{"three packs of four and four steps", append([]run{packOf(0, 4), packOf(4, 4), packOf(8, 4)}, steps(12, 4)...), []string{"16 steps from 7 runs"}},
		{"a pack of sixteen, two of four and three steps", append([]run{packOf(0, 16), packOf(16, 4), packOf(20, 4)}, steps(24, 3)...), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, m := range plan("t", c.runs) {
				got = append(got, fmt.Sprintf("%d steps from %d runs", len(m.Steps), len(m.from)))
				if want := packPrefix + m.Steps[0] + "--" + m.Steps[len(m.Steps)-1]; m.Name != want {
					t.Errorf("a merge is named %s, want %s", m.Name, want)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("plan: %v, want %v", got, c.want)
			}
		})
	}
}
