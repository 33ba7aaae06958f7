package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/internal/atomicfile"
)

// Pruned is what retention took from a journal: every run whose ID sorts
// at or before Through (the newest run pruned), and how many of them each
// job ended in each status, so that counts of all the runs ever started
// (billsnap_runs_total) stay whole. It is written before the runs' files
// are deleted, so a run is counted here or by its file, never both: a file
// at or before Through is a leftover of a prune cut short, and is skipped.
type Pruned struct {
	Through string                    `json:"through"`
	Runs    map[string]map[string]int `json:"runs"` // by job, then status
}

// prunedPath is where the journal in dir keeps its Pruned.
func prunedPath(dir string) string { return filepath.Join(filepath.Dir(dir), "runs-pruned.json") }

// ReadPruned is what retention took from the journal in dir; none when
// nothing was pruned.
func ReadPruned(dir string) (Pruned, error) {
	p := Pruned{Runs: map[string]map[string]int{}}
	b, err := os.ReadFile(prunedPath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil {
		return p, fmt.Errorf("journal: %s: %w", prunedPath(dir), err)
	}
	if p.Runs == nil {
		p.Runs = map[string]map[string]int{}
	}
	return p, nil
}

// Prune deletes the runs of the journal in dir that started before
// before, but for the newest keep runs, and none from the oldest run
// still running on: the oldest runs, in the order they started, so that
// what is pruned is everything up to one run (Pruned.Through). Their
// counts are added to the journal's Pruned first.
func Prune(dir string, before time.Time, keep int, now time.Time) error {
	runs, err := List(dir, now)
	if err != nil {
		return err
	}
	cut := 0                 // runs[cut:] are pruned: one past the oldest run kept
	for i, r := range runs { // newest first
		if r.Status == Running || i < keep || !r.Started.Before(before) {
			cut = i + 1
		}
	}
	if cut >= len(runs) {
		return removeLeftovers(dir)
	}
	tally, err := ReadPruned(dir)
	if err != nil {
		return err
	}
	for _, r := range runs[cut:] {
		if tally.Runs[r.Job] == nil {
			tally.Runs[r.Job] = map[string]int{}
		}
		tally.Runs[r.Job][r.Status]++
	}
	tally.Through = runs[cut].ID
	if err := writePruned(dir, tally); err != nil {
		return err
	}
	return removeLeftovers(dir)
}

// writePruned writes p beside the journal in dir, replacing the old.
func writePruned(dir string, p Pruned) error {
	b, err := json.Marshal(p)
	if err == nil {
		err = atomicfile.Write(prunedPath(dir), b)
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// removeLeftovers deletes the files of the runs Pruned counts.
func removeLeftovers(dir string) error {
	tally, err := ReadPruned(dir)
	if err != nil || tally.Through == "" {
		return err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	for _, name := range names {
		if id := filepath.Base(name[:len(name)-len(".json")]); id <= tally.Through {
			if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("journal: %w", err)
			}
		}
	}
	return nil
}
