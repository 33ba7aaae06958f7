package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Pruning the deliveries before a time keeps what they mean: each
// target's announced findings and newest snapshot, and the counts by
// target, event and result (noted ones aside); the later deliveries stay
// as they were, and pruning again changes nothing of it.
func TestPruningDeliveriesKeepsWhatTheyMean(t *testing.T) {
	d := DeliveriesIn(filepath.Join(t.TempDir(), "notifications.jsonl"))
	at := func(h int) time.Time { return time.Date(2026, 11, 1, h, 0, 0, 0, time.UTC) }
	for _, x := range []Delivery{
		{Time: at(1), Target: "ops", Event: EventMaterial, Key: "S1", Findings: []string{"a", "b"}, Result: DeliverySent},
		{Time: at(1), Target: "fin", Event: EventMaterial, Key: "S1", Findings: []string{"x"}, Result: DeliveryNoted},
		{Time: at(2), Target: "ops", Event: EventResolved, Key: "S2", Findings: []string{"a"}, Result: DeliverySent},
		{Time: at(3), Target: "ops", Event: "failure", Key: "run-1", Result: DeliverySent},
		{Time: at(4), Target: "ops", Event: EventMaterial, Key: "S3", Findings: []string{"c"}, Result: DeliveryFailed},
		{Time: at(5), Target: "ops", Event: EventMaterial, Key: "S4", Findings: []string{"d"}, Result: DeliverySent},
	} {
		if err := d.Add(x); err != nil {
			t.Fatal(err)
		}
	}
	prune := func(before time.Time) {
		t.Helper()
		want := meaning(t, d)
		if err := d.Prune(before); err != nil {
			t.Fatal(err)
		}
		if got := meaning(t, d); got != want {
			t.Errorf("after the prune before %s:\n%s\nwant\n%s", before, got, want)
		}
	}
	prune(at(5))
	ds, _ := d.List()
	if last := ds[len(ds)-1]; last.Key != "S4" || len(ds) != 4 {
		t.Errorf("%d lines, the last %+v; want the tally, ops' and fin's told findings, and S4's delivery", len(ds), last)
	}
	info, _ := os.Stat(d.file.Path)
	prune(at(5))
	if again, _ := os.Stat(d.file.Path); !os.SameFile(info, again) {
		t.Error("a prune with nothing to prune but what earlier ones left rewrote the record")
	}
	// A later prune folds what the first left with what came since.
	d.Add(Delivery{Time: at(6), Target: "ops", Event: EventResolved, Key: "S5", Findings: []string{"d"}, Result: DeliverySent})
	prune(at(7))
}

// meaning is what the deliveries mean: each target's announced findings
// and newest snapshot, and the counts by target, event and result.
func meaning(t *testing.T, d Deliveries) string {
	t.Helper()
	ds, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, x := range ds {
		for _, c := range x.Pruned {
			counts[c.Target+"/"+c.Event+"/"+c.Result] += c.Count
		}
		if x.Result != DeliveryNoted && x.Result != DeliveryPruned {
			counts[x.Target+"/"+x.Event+"/"+x.Result]++
		}
	}
	s := fmt.Sprint(counts)
	for _, target := range []string{"ops", "fin"} {
		told, newest := Announced(ds, target)
		s += fmt.Sprintf("\n%s: %v, newest %s", target, told, newest)
	}
	return s
}
