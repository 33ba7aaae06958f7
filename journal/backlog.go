package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Backlog holds the runs whose record could not be written (a disk full
// or read-only, a journal folder gone), in memory, until the journal can
// take them: a failure that could not be journaled is still on record in
// the process that ran it, and in the journal once a later run can write.
// The zero value is empty and ready; it is safe for concurrent use.
type Backlog struct {
	mu   sync.Mutex
	runs []Run
	err  error // why the newest run could not be written
}

// Add keeps r, which could not be written because of err; a run of the
// same ID already kept is replaced.
func (b *Backlog) Add(r Run, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runs = slices.DeleteFunc(b.runs, func(k Run) bool { return k.ID == r.ID })
	b.runs = append(b.runs, r)
	b.err = err
}

// Runs are the runs kept, newest first.
func (b *Backlog) Runs() []Run {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := slices.Clone(b.runs)
	slices.SortFunc(out, func(a, b Run) int { return strings.Compare(b.ID, a.ID) })
	return out
}

// Pending says how many runs are kept and why the newest could not be
// written; 0 and nil when none is.
func (b *Backlog) Pending() (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.runs), b.err
}

// Flush writes every run kept into the journal in dir, each under its own
// ID (replacing the file of a run whose end could not be written), and
// forgets those written. It returns the first error; the runs it could not
// write stay kept.
func (b *Backlog) Flush(dir string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	kept := b.runs[:0]
	for _, r := range b.runs {
		if err := Write(dir, r); err != nil {
			errs = append(errs, err)
			kept = append(kept, r)
		}
	}
	b.runs = kept
	if len(kept) == 0 {
		b.err = nil
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// Write records the ended run r in the journal in dir under its ID,
// replacing the file of that ID whole (written beside, renamed over). The
// directory is made if need be.
func Write(dir string, r Run) error {
	if r.ID == "" {
		return errors.New("journal: a run without an ID")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	e := &Entry{run: r, path: filepath.Join(dir, r.ID+".json")}
	return e.write()
}

// Unwritten is the record of a run that could not even be started in the
// journal: its ID, process, host and start set as Start sets them, ended
// at now as failed with exit code code and text as its error. It is what a
// Backlog keeps of it.
func Unwritten(r Run, now time.Time, code int, text string) Run {
	r = begun(r, now)
	r.Alive, r.Finished = r.Started, r.Started
	r.Status, r.ExitCode, r.Error = Failed, code, text
	return r
}
