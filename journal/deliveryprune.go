package journal

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// Prune removes the deliveries made before before, in one rewrite of the
// record, keeping what they mean for the deliveries to come: one line of
// their counts by target, event and result (with those of earlier
// prunes; noted ones, which nothing counts, left out), for
// billsnap_notifications_total; and for each target, what
// Announced makes of them (the findings it was told of and not told
// resolved, with when, and the newest snapshot told of), as noted
// deliveries, and the overdue findings it was told of. A line that does
// not parse is dropped.
func (d Deliveries) Prune(before time.Time) error {
	ds, err := d.List()
	if err != nil || !slices.ContainsFunc(ds, func(x Delivery) bool { return x.Time.Before(before) && x.Result != DeliveryPruned && !x.Folded }) {
		return err // nothing to prune but the lines of earlier prunes: no rewrite
	}
	return d.file.Rewrite(func(lines [][]byte) ([][]byte, error) {
		var old []Delivery
		var kept [][]byte
		for _, l := range lines {
			var x Delivery
			switch {
			case json.Unmarshal(l, &x) != nil:
			case x.Time.Before(before):
				old = append(old, x)
			default:
				kept = append(kept, l)
			}
		}
		if len(old) == 0 {
			return lines, nil
		}
		var out [][]byte
		for _, x := range folded(old) {
			b, err := json.Marshal(x)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return append(out, kept...), nil
	})
}

// folded is what the deliveries old leave once removed: their counts, and
// each target's announced findings as noted deliveries.
func folded(old []Delivery) []Delivery {
	counts := map[DeliveryCount]int{}
	var targets []string
	last := old[len(old)-1].Time
	for _, d := range old {
		for _, c := range d.Pruned {
			counts[DeliveryCount{Target: c.Target, Event: c.Event, Result: c.Result}] += c.Count
		}
		if d.Result == DeliveryPruned {
			continue
		}
		if d.Result != DeliveryNoted { // what nothing counts, and the lines of earlier prunes
			counts[DeliveryCount{Target: d.Target, Event: d.Event, Result: d.Result}]++
		}
		if !slices.Contains(targets, d.Target) {
			targets = append(targets, d.Target)
		}
	}
	tally := Delivery{Time: last, Result: DeliveryPruned}
	for _, c := range slices.SortedFunc(maps.Keys(counts), compareCounts) {
		c.Count = counts[c]
		tally.Pruned = append(tally.Pruned, c)
	}
	out := []Delivery{tally}
	for _, t := range targets {
		out = append(out, announcedAs(old, t, last)...)
		if told := Overdue(old, t); len(told) > 0 {
			out = append(out, Delivery{Time: last, Target: t, Event: EventOverdue, Findings: slices.Sorted(maps.Keys(told)), Result: DeliveryNoted, Folded: true})
		}
	}
	return out
}

// Overdue are the overdue findings target was told of (sent or noted),
// each as its delivery keys it ("key@due").
func Overdue(past []Delivery, target string) map[string]bool {
	told := map[string]bool{}
	for _, d := range past {
		if d.Target == target && d.Event == EventOverdue && (d.Result == DeliverySent || d.Result == DeliveryNoted) {
			for _, k := range d.Findings {
				told[k] = true
			}
		}
	}
	return told
}

func compareCounts(a, b DeliveryCount) int {
	return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Event, b.Event), cmp.Compare(a.Result, b.Result))
}

// announcedAs is what Announced makes of past for target, as noted
// deliveries: a material one for the findings last told at each time, and
// a resolved one of none that keeps the newest snapshot when none is told.
func announcedAs(past []Delivery, target string, last time.Time) []Delivery {
	told, newest := Announced(past, target)
	if newest == "" {
		return nil
	}
	byTime := map[time.Time][]string{}
	for k, at := range told {
		byTime[at] = append(byTime[at], k)
	}
	var out []Delivery
	for _, at := range slices.SortedFunc(maps.Keys(byTime), time.Time.Compare) {
		out = append(out, Delivery{Time: at, Target: target, Event: EventMaterial, Key: newest, Findings: slices.Sorted(slices.Values(byTime[at])),
			Result: DeliveryNoted, Folded: true})
	}
	if len(out) == 0 {
		out = append(out, Delivery{Time: last, Target: target, Event: EventResolved, Key: newest, Result: DeliveryNoted, Folded: true})
	}
	return out
}

// Announced are the material findings target was told of (sent or noted)
// and not told resolved since, with when it was last told, and the newest
// snapshot a material or resolved delivery to it was about.
func Announced(past []Delivery, target string) (map[string]time.Time, string) {
	told := map[string]time.Time{}
	newest := ""
	for _, d := range past {
		if d.Target != target || (d.Result != DeliverySent && d.Result != DeliveryNoted) {
			continue
		}
		switch d.Event {
		case EventMaterial:
			for _, k := range d.Findings {
				told[k] = d.Time
			}
		case EventResolved:
			for _, k := range d.Findings {
				delete(told, k)
			}
		default:
			continue
		}
		newest = max(newest, d.Key)
	}
	return told, newest
}
