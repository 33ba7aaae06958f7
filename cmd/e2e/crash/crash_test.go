//go:build heavy

package crash

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// crashMoment is when a crash test kills the export: at a named crash
// point of a binary built with the tag crashpoints (internal/crashpoint),
// or at the n-th change the kernel reports on a file of the output
// directory (inotify), which lands inside DuckDB's own writes.
type crashMoment struct {
	at     string  // BILLSNAP_CRASH_AT
	file   string  // or: a file of the output directory…
	events uint32  // …the kinds of change counted…
	n      int     // …and the count at which the export is killed
	keep   int     // retention.keep of the run (0: keep all)
	after  outcome // for a named moment; a kernel moment's is read from the trace
}

// outcome is which snapshot readers must see as latest after the crash.
type outcome int

const (
	previous outcome = iota // the crash comes before the new snapshot's commit point
	next                    // the crash comes after it
	either                  // the kill landed within the commit point's rename
)

// traced is the outcome of a kill from outside, read from the crash
// points the process passed (BILLSNAP_CRASH_TRACE): the commit point is
// the read model's rename, between model.copied and model.public. A kill
// from outside lands some time after the change that set it off, longer on
// a busy machine, so the moment it was meant for says less than the trace.
func traced(points []string) outcome {
	for i := len(points) - 1; i >= 0; i-- {
		switch points[i] {
		case "model.public":
			return next
		case "model.copied":
			return either
		}
	}
	return previous
}

func (m crashMoment) String() string {
	if m.at != "" {
		return m.at
	}
	return fmt.Sprintf("%s-change-%d", m.file, m.n)
}

var crashMoments = []crashMoment{
	{at: "walk.page#1"},
	{at: "walk.page#60"},
	{at: "walk.page#100"},
	{at: "parquet.flush#1"},
	{at: "parquet.file#5"},
	{at: "load.insert#1"},
	{at: "load.insert#9"},
	{at: "load.insert#15"},
	{at: "publish.verified"},
	{at: "history.staged"}, // the run's history steps staged; no manifest yet
	{at: "publish.manifest"},
	{at: "tree.add#1"},
	{at: "tree.add#7"},
	{at: "tree.add#15"},      // every table's partition is in the tree; not yet recorded complete
	{at: "publish.history"},  // history moved and recorded in the state, not yet committed
	{at: "history.packed"},   // the template's three steps and the new one packed, listed in the state, not yet committed
	{at: "publish.complete"}, // recorded complete in the state not yet committed
	{at: "model.built"},
	{at: "state.written#4"}, // the publish committed in the state; the read model not published yet
	{at: "records.shown"},   // the records show the new snapshot; the read model not published yet
	{at: "model.copied"},
	{at: "model.public", after: next},
	{at: "publish.done", after: next},
	{at: "prune.committed", keep: 1, after: next},
	{at: "close", after: next},
	{file: ".billsnap/state.duckdb.next", events: unix.IN_MODIFY, n: 1},
	{file: ".billsnap/state.duckdb.next", events: unix.IN_MODIFY, n: 6},
	{file: ".billsnap/state.duckdb", events: unix.IN_MOVED_TO, n: 3}, // the manifest committed
	{file: ".billsnap/state.duckdb", events: unix.IN_MOVED_TO, n: 4},
	{file: ".billsnap/model.next.duckdb", events: unix.IN_MODIFY, n: 1},
	{file: "billsnap.duckdb", events: unix.IN_MOVED_TO, n: 1},
	{file: "records", events: unix.IN_MOVED_TO, n: 1},
}

// crashBench is a store holding one complete snapshot (of first), to be
// copied for each case, and a second sandbox whose export is interrupted.
// Its history holds three steps (first, another sandbox's, first again,
// the snapshots before the last pruned), so that the next export packs
// history's files (history.PackFanIn).
type crashBench struct {
	bin, template, firstID string
	published              string // the SHA-256 of the template's read model
	first, second          *sandbox.Server
	firstKey, secondKey    sandbox.AnswerKey // theirs (computed once: the sandboxes do not change)
}

func newCrashBench(t *testing.T) *crashBench {
	b := &crashBench{bin: e2etest.BinaryWithTags(t, "crashpoints"), template: t.TempDir(),
		first:  sandboxtest.Start(t, sandbox.Options{Seed: 61, Customers: 60, Planted: 1}, ""),
		second: sandboxtest.Start(t, sandbox.Options{Seed: 62, Customers: 300, Planted: 1}, "")}
	other := sandboxtest.Start(t, sandbox.Options{Seed: 63, Customers: 40, Planted: 1}, "")
	keepOne := filepath.Join(t.TempDir(), "billsnap.yml")
	os.WriteFile(keepOne, []byte("retention: {keep: 1}\n"), 0o644)
	for i, srv := range []*sandbox.Server{b.first, other, b.first} {
		cmd := e2etest.ChildExport(b.bin, srv, b.template)
		cmd.Args = append(cmd.Args, "--config", keepOne)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("export %d of the template: %v\n%s", i+1, err, out)
		}
	}
	e2etest.WithDB(t, b.template, func(db *sql.DB) { db.QueryRow("SELECT id FROM latest_snapshot").Scan(&b.firstID) })
	b.firstKey, b.secondKey = b.first.AnswerKey(), b.second.AnswerKey()
	b.published = e2etest.FileHash(t, filepath.Join(b.template, "billsnap.duckdb"))
	return b
}

// store is a copy of the template store.
func (b *crashBench) store(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "out")
	if out, err := exec.Command("cp", "-a", b.template, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dir
}

// key is the answer key of snapshot id.
func (b *crashBench) key(id string) sandbox.AnswerKey {
	if id == b.firstID {
		return b.firstKey
	}
	return b.secondKey
}

// recovers checks that the next export of dir completes, becomes latest
// and cleans up.
func (b *crashBench) recovers(t *testing.T, dir string) {
	t.Helper()
	if out, err := e2etest.ChildExport(b.bin, b.second, dir).CombinedOutput(); err != nil {
		t.Fatalf("the export after the crash: %v\n%s", err, out)
	}
	if latest := e2etest.CheckReaders(t, dir, b.key); latest == b.firstID {
		t.Error("the export after the crash did not become latest")
	}
	e2etest.CheckCleanedUp(t, dir)
	checkHistoryFiles(t, dir)
}

// checkHistoryFiles checks that history's versions and changes are all
// in files the state lists, and that it lists a pack: a step's own
// files, or the pack that holds the step; no pack a kill left unlisted,
// nor a step's own file beside its pack.
func checkHistoryFiles(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, ".billsnap", "state.duckdb")+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT table_name || '/' || coalesce(pack, snapshot), pack IS NOT NULL FROM history_steps")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	live, packs := map[string]bool{}, 0
	for rows.Next() {
		var name string
		var packed bool
		rows.Scan(&name, &packed)
		live[name] = true
		if packed {
			packs++
		}
	}
	if packs == 0 {
		t.Error("no step of history is in a pack")
	}
	versions, _ := filepath.Glob(filepath.Join(dir, ".billsnap", "history", "versions", "*", "*.parquet"))
	changes, _ := filepath.Glob(filepath.Join(dir, ".billsnap", "history", "changes", "*", "*.parquet"))
	for _, f := range append(versions, changes...) {
		table, name := filepath.Base(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".parquet")
		if name != "empty" && !live[table+"/"+name] {
			t.Errorf("history's file %s is listed nowhere", f)
		}
	}
}

// An export killed at any of 32 moments leaves a store that opens, whose
// readers see the previous complete snapshot (or, after the commit point,
// the new one) whole, with nothing half published in the Parquet tree; the
// next export completes and cleans up.
func TestCrashAtAnyMomentKeepsTheLastGoodSnapshot(t *testing.T) {
	t.Parallel()
	b := newCrashBench(t)
	for _, m := range crashMoments {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			dir := b.store(t)
			points := crash(t, b.bin, b.second, dir, m)
			after := m.after
			if m.file != "" {
				after = traced(points)
				t.Logf("killed after crash point %s", points[len(points)-1])
			}
			latest := e2etest.CheckReaders(t, dir, b.key)
			if after != either && (latest != b.firstID) != (after == next) {
				t.Errorf("after the crash (at %s) latest_ is snapshot %s (the first is %s)", points[len(points)-1], latest, b.firstID)
			}
			// The file readers open was never written in place: it is the
			// one before, byte for byte, or a new one whole.
			if latest == b.firstID && e2etest.FileHash(t, filepath.Join(dir, "billsnap.duckdb")) != b.published {
				t.Error("the read model shows the previous snapshot but is not the previous file byte for byte")
			}
			b.recovers(t, dir)
		})
	}
}

// A disk that fills up part-way — from the n-th write of a staged Parquet
// file, or the n-th rename into the Parquet tree, every write fails with
// ENOSPC — stops the export with exit 1 and a message that says so;
// readers still see the previous snapshot whole; the next export
// completes. Before the manifest the snapshot is dropped with its staging;
// after it (the tree's renames) it is kept for the next run to publish.
func TestDiskFullKeepsTheLastGoodSnapshot(t *testing.T) {
	t.Parallel()
	b := newCrashBench(t)
	for at, keptStaging := range map[string]bool{"parquet.write#30": false, "tree.add#5": true} {
		t.Run(at, func(t *testing.T) {
			t.Parallel()
			dir := b.store(t)
			out, err := e2etest.ChildExport(b.bin, b.second, dir, "BILLSNAP_FAIL_AT="+at).CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != job.ExitFailure || !strings.Contains(string(out), "no space left on device") {
				t.Fatalf("a full disk: %v; output:\n%s", err, out)
			}
			t.Logf("%s", out)
			if latest := e2etest.CheckReaders(t, dir, b.key); latest != b.firstID {
				t.Errorf("after a full disk latest_ is %s", latest)
			}
			if _, err := os.Stat(filepath.Join(dir, ".staging")); os.IsNotExist(err) == keptStaging {
				t.Errorf("staging after a full disk: %v, want it kept %v", err, keptStaging)
			}
			b.recovers(t, dir)
		})
	}
}

// crash runs an export of srv into dir and kills it at moment m; it fails
// the test if the export ended on its own. It returns the crash points the
// export passed, "start" first.
func crash(t *testing.T, bin string, srv *sandbox.Server, dir string, m crashMoment) []string {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace")
	env := []string{"BILLSNAP_CRASH_TRACE=" + trace}
	if m.at != "" {
		env = append(env, "BILLSNAP_CRASH_AT="+m.at)
	}
	cfg := filepath.Join(t.TempDir(), "billsnap.yml")
	os.WriteFile(cfg, fmt.Appendf(nil, "retention: {keep: %d}\n", m.keep), 0o644)
	cmd := e2etest.ChildExport(bin, srv, dir, env...)
	cmd.Args = append(cmd.Args, "--config", cfg)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	started := make(chan *os.Process, 1)
	if m.file != "" {
		stop := killOnChange(t, started, dir, m.file, m.events, m.n)
		defer stop()
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started <- cmd.Process
	err := cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the export was not killed at %s (%v); output:\n%s", m, err, out.String())
	}
	points, err := os.ReadFile(trace)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return append([]string{"start"}, strings.Fields(string(points))...)
}

// killOnChange kills the process sent on started at the n-th change of
// kind events to file (a path under dir), as the kernel reports them.
func killOnChange(t *testing.T, started <-chan *os.Process, dir, file string, events uint32, n int) (stop func()) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	dir, file = filepath.Dir(filepath.Join(dir, file)), filepath.Base(file)
	if _, err := unix.InotifyAddWatch(fd, dir, events); err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	go func() {
		buf, seen := make([]byte, 64<<10), 0
		for {
			k, err := f.Read(buf)
			if err != nil {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= k; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
				off += unix.SizeofInotifyEvent + int(ev.Len)
				if name == file {
					if seen++; seen == n {
						(<-started).Signal(syscall.SIGKILL)
					}
				}
			}
		}
	}()
	return func() { f.Close() }
}

// The key test of the fast tier with bodies that are not JSON, a NextPage
// loop and panics too (the real binary, built with crash points), at a
// larger size: a panic's output holds no key.
func TestTheKeyAppearsInNoPanic(t *testing.T) {
	t.Parallel()
	out := e2etest.KeyAppearsInNoOutput(t, e2etest.BinaryWithTags(t, "crashpoints"), 150, append([]e2etest.KeyStep{
		{Faults: "html=0.3", Args: []string{"export"}, Code: job.ExitFailure},
		{Faults: "loop=Invoices@2", Args: []string{"export"}, Code: job.ExitFailure},
		{Env: []string{"BILLSNAP_PANIC_AT=walk.page#3"}, Args: []string{"export"}, Code: 2},
		{Env: []string{"BILLSNAP_PANIC_AT=publish.verified"}, Args: []string{"export"}, Code: job.ExitFailure},
	}, keyReread...))
	if !strings.Contains(out, "panic: crashpoint walk.page") || !strings.Contains(out, "the job panicked") {
		t.Error("the panics did not happen")
	}
}

// keyReread are the heavy tier's key test's reconcile and report of the
// store its exports left, before the read commands.
var keyReread = []e2etest.KeyStep{
	{Args: []string{"reconcile", "--format", "json"}, Code: job.ExitMaterial},
	{Args: []string{"report", "--format", "md,html,xlsx,csv,json"}, Code: job.ExitMaterial},
}
