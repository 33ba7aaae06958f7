package schedule

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
)

// Readiness is what /readyz answers: whether on-call can trust the
// scheduler's work now. It is not ready while a run could not be
// recorded in the journal, the store cannot take a file or is out of
// space, the last run of a schedule failed, or a schedule's last success
// is older than twice its interval (plus what that run took). A run that
// found something material is a success; an interrupted one changes
// nothing. It is safe for concurrent use.
type Readiness struct {
	mu         sync.Mutex
	specs      []Schedule
	since      time.Time // when the scheduler started: the age of a schedule with no success yet
	state      map[string]*scheduleState
	unrecorded *journal.Backlog
	store      StoreProbe
}

// scheduleState is what readiness knows of one schedule's runs.
type scheduleState struct {
	failed   bool // its last ended run failed
	code     int
	at       time.Time // when that run ended
	err      string
	success  time.Time     // when its last success ended; zero: none
	took     time.Duration // how long that success took
	hasEnded bool
}

// NewReadiness is the readiness of specs, started at since, primed with
// the runs of the journal so far (newest first, as journal.List gives
// them): a schedule whose last run failed before a restart is still not
// ready. unrecorded is the metrics' backlog (Metrics.Unrecorded); store
// probes the store.
func NewReadiness(specs []Schedule, since time.Time, runs []journal.Run, unrecorded *journal.Backlog, store StoreProbe) *Readiness {
	r := &Readiness{specs: specs, since: since, state: map[string]*scheduleState{}, unrecorded: unrecorded, store: store}
	for _, s := range specs {
		r.state[s.Name] = &scheduleState{}
	}
	for _, run := range runs {
		st := r.state[run.Schedule]
		if st == nil || run.Schedule == "" {
			continue
		}
		success := run.Status == journal.OK || run.Status == journal.Material
		failed := run.Status == journal.Failed || run.Status == journal.Refused || run.Status == journal.Killed
		if !st.hasEnded && (success || failed) {
			st.hasEnded, st.failed, st.code, st.at, st.err = true, failed, run.ExitCode, run.Finished, run.Error
		}
		if success && st.success.IsZero() {
			st.success, st.took = run.Finished, run.Finished.Sub(run.Started)
		}
	}
	return r
}

// Ended tells readiness how a run of schedule name ended: started at
// start, ended at end with exit code code (0 ok, 3 material, 130
// interrupted, another a failure) and the error's text. A nil Readiness
// is told nothing.
func (r *Readiness) Ended(name string, start, end time.Time, code int, errText string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.state[name]
	if st == nil || code == exitInterrupted {
		return
	}
	st.hasEnded, st.at, st.code = true, end, code
	st.failed = code != exitOK && code != exitMaterial
	st.err = errText
	if !st.failed {
		st.success, st.took, st.err = end, end.Sub(start), ""
	}
}

// Exit codes readiness reads (job's: the schedule stands below job).
const (
	exitOK          = 0
	exitMaterial    = 3
	exitInterrupted = 130
)

// Check is nil when ready at now, or the first reason not to be, in one
// line: a run not recorded, the store, then each schedule in order.
func (r *Readiness) Check(now time.Time) error {
	if n, err := r.unrecorded.Pending(); n > 0 {
		return fmt.Errorf("%d run(s) could not be recorded in the journal (kept in memory until a run can write): %s", n, oneLine(err))
	}
	if err := r.store.Check(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.specs {
		if err := r.checkSchedule(s, now); err != nil {
			return err
		}
	}
	return nil
}

// checkSchedule is why schedule s is not ready at now; nil when it is.
func (r *Readiness) checkSchedule(s Schedule, now time.Time) error {
	st := r.state[s.Name]
	if st.failed {
		return fmt.Errorf("the last run of schedule %s failed (exit %d) at %s: %s", s.Name, st.code, st.at.UTC().Format(time.RFC3339), oneLine(errors.New(st.err)))
	}
	from, what := st.success, "its last success ended"
	if from.IsZero() {
		from, what = r.since, "no success since the scheduler started"
	}
	sched, err := cronParser.Parse(s.Spec)
	if err != nil {
		return fmt.Errorf("schedule %s: %w", s.Name, err)
	}
	next := sched.Next(from)
	interval := sched.Next(next).Sub(next)
	if limit := 2*interval + st.took; now.Sub(from) > limit {
		return fmt.Errorf("schedule %s is stale: %s %s ago, more than twice its interval (%s) plus what a run takes (%s)",
			s.Name, what, now.Sub(from).Round(time.Second), interval, st.took.Round(time.Second))
	}
	return nil
}

// oneLine is an error's text on one line, with its hint; "" for nil.
func oneLine(err error) string {
	if err == nil {
		return ""
	}
	return termsafe.Brief(err.Error())
}

// Handler serves /readyz: 200 "ready", or 503 with the reason in one
// line; now is the clock.
func (r *Readiness) Handler(now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := r.Check(now()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready:", err)
			return
		}
		fmt.Fprintln(w, "ready")
	})
}

// MinFree is the free space below which a store is out of space for
// readiness: less than a run's record and its metrics need.
const MinFree = 1 << 20

// StoreProbe checks that a store can take a run: a small file written and
// removed in its journal's folder, and at least MinFree bytes free there.
type StoreProbe struct {
	Out     layout.Dir
	MinFree uint64 // 0: MinFree
}

// Check writes and removes a probe file of 4 KiB in the journal's folder
// (or, before the first run made it, the nearest folder above it that
// exists), then reads the free space there; the error says which failed,
// in one line. It costs a few system calls.
func (p StoreProbe) Check() error {
	dir, err := nearestDir(p.Out.Runs())
	if err != nil {
		return fmt.Errorf("the store %s is not writable: %v", p.Out, err)
	}
	f, err := os.CreateTemp(dir, layout.ReadyProbe)
	if err != nil {
		return fmt.Errorf("the store %s is not writable: %v", p.Out, err)
	}
	_, werr := f.Write(make([]byte, 4096))
	cerr := f.Close()
	os.Remove(f.Name())
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("the store %s is not writable: %v", p.Out, err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return fmt.Errorf("the free space of the store %s: %v", p.Out, err)
	}
	free, min := uint64(st.Bavail)*uint64(st.Bsize), p.MinFree
	if min == 0 {
		min = MinFree
	}
	if free < min {
		return fmt.Errorf("the store %s is out of space: %d KiB free, less than %d KiB", p.Out, free>>10, min>>10)
	}
	return nil
}

// nearestDir is dir, or, when it does not exist yet, the nearest folder
// above it that does; an error when something else than a folder is in
// the way.
func nearestDir(dir string) (string, error) {
	for {
		st, err := os.Stat(dir)
		switch {
		case err == nil && st.IsDir():
			return dir, nil
		case err == nil:
			return "", fmt.Errorf("%s is not a folder", dir)
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no folder of %s exists", dir)
		}
		dir = parent
	}
}
