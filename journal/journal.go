// Package journal is the record of every run of a billsnap job in an
// output directory: one small JSON file per run in DIR/.billsnap/runs/,
// written when the run starts (before it waits for any lock), while it
// runs (a heartbeat) and when it ends. No database holds it, so no reader
// of the store can lock it away, and a run refused by a lock, failed at
// start or killed is on record like any other. A run whose file still
// says running but whose process is gone, or whose heartbeat stopped, is
// read as killed, with the time it was last seen alive. A run whose record
// cannot be written (a disk full or read-only) is kept in a [Backlog] by
// the process that ran it, and written by the next run that can.
//
// It also records the notifications' deliveries ([Deliveries]), and keeps
// both within retention ([Retain]): the runs that started before the
// oldest complete snapshot kept are pruned, but for the newest few, and
// deliveries are kept a week at the least. What was pruned is counted
// ([Pruned]).
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Run statuses.
const (
	Running     = "running"
	OK          = "ok"
	Material    = "material"    // ran, found something material (exit 3)
	Failed      = "failed"      // exit 1 or 2
	Refused     = "refused"     // another billsnap held the directory past lock_wait (exit 1)
	Interrupted = "interrupted" // SIGINT or SIGTERM (exit 130)
	Killed      = "killed"      // ended without recording its end: SIGKILL, the OOM killer, a power cut
)

// statuses are every status a run ends in, and running.
var statuses = []string{Running, OK, Material, Failed, Refused, Interrupted, Killed}

// KilledExitCode is the exit code recorded for a killed run: 128 + SIGKILL,
// as a shell reports it.
const KilledExitCode = 137

// Beat is how often a running run rewrites its file, so that a killed run
// is recorded with the time it ran to within a beat; a run not seen for
// Stale is read as killed even when a process of its ID is alive (the ID
// reused, or the run on another host).
const (
	Beat  = time.Second
	Stale = 30 * time.Second
)

// Run is one execution of a job.
type Run struct {
	ID       string    `json:"id"`
	Job      string    `json:"job"`                // export, reconcile, report, run
	Schedule string    `json:"schedule,omitempty"` // "" for a one-shot command
	Period   string    `json:"period,omitempty"`
	PID      int       `json:"pid"`
	Host     string    `json:"host"`
	Started  time.Time `json:"started"`
	Alive    time.Time `json:"alive"`             // last heartbeat
	Finished time.Time `json:"finished,omitzero"` // zero while running
	Status   string    `json:"status"`            // one of statuses
	ExitCode int       `json:"exit_code"`         // 0 while running
	Snapshot string    `json:"snapshot_id,omitempty"`
	Findings *int      `json:"findings,omitempty"` // the open findings of the reconciliation it made; nil when it made none
	Error    string    `json:"error,omitempty"`
	Requests
}

// Requests are what a run's requests to the service met: attempts the
// client retried, and answers 429 that made it wait (a throttle is also a
// retry).
type Requests struct {
	Retries   int64 `json:"retries,omitempty"`
	Throttles int64 `json:"throttles,omitempty"`
}

// Seconds is how long the run took, or has run until it was last seen.
func (r Run) Seconds() float64 {
	end := r.Finished
	if end.IsZero() {
		end = r.Alive
	}
	return end.Sub(r.Started).Seconds()
}

// Journal writes the runs of one output directory.
type Journal struct {
	dir string
	now func() time.Time
}

// New is the journal in dir; now is the clock of the records.
func New(dir string, now func() time.Time) *Journal { return &Journal{dir: dir, now: now} }

// Entry is a run being recorded.
type Entry struct {
	j    *Journal
	mu   sync.Mutex
	run  Run
	path string
}

// Start records r as running: its ID, process, host and start are set
// here. The directory is made if need be.
func (j *Journal) Start(r Run) (*Entry, error) {
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	r = begun(r, j.now())
	e := &Entry{j: j, run: r, path: filepath.Join(j.dir, r.ID+".json")}
	return e, e.write()
}

// begun is r running from now: its ID, process, host and start set.
func begun(r Run, now time.Time) Run {
	now = now.UTC()
	r.PID, r.Started, r.Alive, r.Status = os.Getpid(), now, now, Running
	r.Host, _ = os.Hostname()
	r.ID = fmt.Sprintf("%s-%s-%d", now.Format(idTime), r.Job, r.PID)
	return r
}

// Run is the record as it stands.
func (e *Entry) Run() Run {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.run
}

// Beat records that the run is alive now.
func (e *Entry) Beat() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.run.Status != Running {
		return nil
	}
	e.run.Alive = e.j.now().UTC()
	return e.writeLocked()
}

// End is how a run ended.
type End struct {
	Status   string
	ExitCode int
	Snapshot string
	Findings *int // nil when the run made no reconciliation
	Error    string
	Requests
}

// Finish records the end of the run.
func (e *Entry) Finish(end End) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.j.now().UTC()
	e.run.Finished, e.run.Alive, e.run.Status, e.run.ExitCode = now, now, end.Status, end.ExitCode
	e.run.Snapshot, e.run.Findings, e.run.Error, e.run.Requests = end.Snapshot, end.Findings, end.Error, end.Requests
	return e.writeLocked()
}

func (e *Entry) write() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.writeLocked()
}

// writeLocked replaces the run's file whole: a temporary file renamed
// over it, so a reader never sees half a record; a temporary file that
// could not be written whole is removed.
func (e *Entry) writeLocked() error {
	b, err := json.Marshal(e.run)
	if err != nil {
		return err
	}
	tmp := e.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		os.Remove(tmp) // a disk full leaves it empty or cut short
		return fmt.Errorf("journal: %w", err)
	}
	if err := os.Rename(tmp, e.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// List reads every run of the journal in dir that retention has not
// pruned (Prune), newest first. A run whose file says running is read as
// killed when its process is gone (on this host) or it has not been seen
// for Stale; its end is when it was last seen. A journal that does not
// exist has no runs.
func List(dir string, now time.Time) ([]Run, error) { return Newest(dir, -1, now) }

// Newest is List of the newest n runs only (all for n < 0): it reads no
// other run's file.
func Newest(dir string, n int, now time.Time) ([]Run, error) {
	ids, err := IDs(dir)
	if err != nil {
		return nil, err
	}
	if n >= 0 && len(ids) > n {
		ids = ids[:n]
	}
	return Read(dir, ids, now)
}

// Read reads the runs ids of the journal in dir as List does; a run
// pruned meanwhile is left out.
func Read(dir string, ids []string, now time.Time) ([]Run, error) {
	host, _ := os.Hostname()
	out := make([]Run, 0, len(ids))
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(dir, id+".json"))
		if errors.Is(err, os.ErrNotExist) {
			continue // pruned meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		var r Run
		if err := json.Unmarshal(b, &r); err != nil {
			r = unreadable(id, err)
		}
		out = append(out, settle(r, host, now))
	}
	return out, nil
}

// IDs are the IDs of the runs of the journal in dir that retention has
// not pruned, newest first: an ID begins with its run's start, so IDs
// sort as the runs started.
func IDs(dir string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	tally, err := ReadPruned(dir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, name := range names {
		if id := strings.TrimSuffix(filepath.Base(name), ".json"); id > tally.Through {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int { return strings.Compare(b, a) })
	return ids, nil
}

// idTime is the layout of the start time that begins a run's ID.
const idTime = "20060102T150405.000000000Z"

// unreadable is the run of a file that does not parse (cut short by a
// power cut: the journal does not sync): a killed run, its job and start
// read from its ID, so that it is still counted.
func unreadable(id string, err error) Run {
	r := Run{ID: id, Status: Killed, ExitCode: KilledExitCode, Error: "its record is unreadable: " + err.Error()}
	start, rest, _ := strings.Cut(id, "-")
	if i := strings.LastIndex(rest, "-"); i > 0 {
		r.Job = rest[:i]
	}
	r.Started, _ = time.Parse(idTime, start)
	r.Alive, r.Finished = r.Started, r.Started
	return r
}

// settle reads a run that says running but is not as killed.
func settle(r Run, host string, now time.Time) Run {
	if r.Status != Running {
		return r
	}
	gone := r.Host == host && !alive(r.PID)
	if !gone && now.Sub(r.Alive) < Stale {
		return r
	}
	r.Status, r.ExitCode, r.Finished = Killed, KilledExitCode, r.Alive
	r.Error = "the process ended without recording the end of the run (killed)"
	return r
}

// alive tells whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// KeepAlive beats every interval until the returned stop is called; stop
// waits for a beat under way.
func (e *Entry) KeepAlive(every time.Duration) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				e.Beat()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done); <-exited })
	}
}
