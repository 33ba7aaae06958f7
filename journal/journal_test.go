package journal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

func TestARunIsOnRecordFromItsStart(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	j := New(dir, func() time.Time { return now })
	e, err := j.Start(Run{Job: "export", Schedule: "nightly", Period: "2026-10"})
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := List(dir, now)
	if len(runs) != 1 || runs[0].Status != Running || runs[0].PID != os.Getpid() || runs[0].Schedule != "nightly" {
		t.Fatalf("while running: %+v", runs)
	}
	now = now.Add(90 * time.Second)
	e.Beat()
	now = now.Add(5 * time.Second)
	if err := e.Finish(End{Status: Material, ExitCode: 3, Snapshot: "2026-11-24T030000Z", Requests: Requests{Retries: 4, Throttles: 1}}); err != nil {
		t.Fatal(err)
	}
	runs, _ = List(dir, now.Add(time.Hour))
	if r := runs[0]; r.Status != Material || r.ExitCode != 3 || r.Seconds() != 95 || r.Snapshot != "2026-11-24T030000Z" || r.Retries != 4 || r.Throttles != 1 {
		t.Errorf("after: %+v", r)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// A run whose process is gone, or that has not been seen for Stale, is
// killed, ending when it was last seen.
func TestARunThatStoppedBeatingIsKilled(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	now := start
	j := New(dir, func() time.Time { return now })
	e, _ := j.Start(Run{Job: "export"})
	now = start.Add(20 * time.Second)
	e.Beat()
	if runs, _ := List(dir, start.Add(20*time.Second+Stale-time.Second)); runs[0].Status != Running {
		t.Errorf("seen less than Stale ago, its process alive: %s", runs[0].Status)
	}
	runs, _ := List(dir, start.Add(20*time.Second+Stale+time.Second))
	if r := runs[0]; r.Status != Killed || r.ExitCode != KilledExitCode || r.Seconds() != 20 {
		t.Errorf("not seen for more than Stale: %+v", r)
	}

	// A dead process is killed at once, whatever its last beat.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	e2, _ := j.Start(Run{Job: "report"})
	r := e2.Run()
	r.PID = cmd.Process.Pid
	e2.run = r
	e2.write()
	runs, _ = List(dir, now)
	for _, r := range runs {
		if r.Job == "report" && r.Status != Killed {
			t.Errorf("a run whose process ended: %+v", r)
		}
	}
}

func TestKeepAliveBeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		j := New(dir, time.Now)
		e, _ := j.Start(Run{Job: "export"})
		stop := e.KeepAlive(Beat)
		time.Sleep(3*Beat + Beat/2)
		stop()
		runs, _ := List(dir, time.Now())
		if got := runs[0].Alive.Sub(runs[0].Started); got != 3*Beat {
			t.Errorf("alive %s after the start; want %s", got, 3*Beat)
		}
	})
}

// Prune takes the finished runs that started before its time, the oldest
// first, never one of the newest keep nor one that started after a run
// still running; their counts stay in the journal's Pruned, and a file a
// prune cut short left behind is neither listed nor counted twice.
func TestPruneKeepsTheNewestAndTheCounts(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	j := New(dir, func() time.Time { return now })
	var ids []string
	for i := range 8 {
		e, _ := j.Start(Run{Job: []string{"export", "reconcile"}[i%2]})
		ids = append(ids, e.Run().ID)
		now = now.Add(time.Second)
		if i != 5 {
			e.Finish(End{Status: []string{OK, Material}[i%3/2]})
		}
	}
	before := now.Add(-2 * time.Second) // runs 0-5 started before it
	if err := Prune(dir, before, 1, now); err != nil {
		t.Fatal(err)
	}
	runs, _ := List(dir, now)
	tally, _ := ReadPruned(dir)
	// Run 5 still runs: 5, 6 and 7 stay; 0-4 go.
	if len(runs) != 3 || runs[2].ID != ids[5] || tally.Through != ids[4] {
		t.Fatalf("after the prune: %d runs (oldest %s), pruned through %s; want 3 from %s, through %s", len(runs), runs[len(runs)-1].ID, tally.Through, ids[5], ids[4])
	}
	want := map[string]map[string]int{"export": {OK: 2, Material: 1}, "reconcile": {OK: 2}}
	if fmt.Sprint(tally.Runs) != fmt.Sprint(want) {
		t.Errorf("pruned %v, want %v", tally.Runs, want)
	}
	// A leftover of a prune cut short after its tally was written.
	os.WriteFile(filepath.Join(dir, ids[0]+".json"), []byte(`{"id":"`+ids[0]+`","job":"export","status":"ok"}`), 0o644)
	if runs, _ := List(dir, now); len(runs) != 3 {
		t.Errorf("a pruned run's file is listed: %d runs", len(runs))
	}
	if err := Prune(dir, before, 1, now); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ids[0]+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the leftover is still there: %v", err)
	}
	if again, _ := ReadPruned(dir); fmt.Sprint(again) != fmt.Sprint(tally) {
		t.Errorf("a second prune with nothing to take changed the tally: %v", again)
	}
}

// Newest reads only the newest runs' files.
func TestNewestReadsOnlyTheNewest(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	j := New(dir, func() time.Time { return now })
	for range 4 {
		e, _ := j.Start(Run{Job: "export"})
		e.Finish(End{Status: OK})
		now = now.Add(time.Second)
	}
	runs, _ := List(dir, now)
	os.WriteFile(filepath.Join(dir, runs[3].ID+".json"), []byte("not json"), 0o644) // the oldest
	newest, err := Newest(dir, 2, now)
	if err != nil || len(newest) != 2 || newest[0].ID != runs[0].ID || newest[1].ID != runs[1].ID {
		t.Fatalf("Newest 2: %+v, %v", newest, err)
	}
	if all, _ := List(dir, now); all[3].Status != Killed {
		t.Errorf("List reads every file: the oldest is %+v", all[3])
	}
}

// A run file cut short (a power cut: the journal does not sync) is a
// killed run of the job and start its ID names, and the others are read.
func TestAnUnreadableRunIsKilledAndCounted(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	j := New(dir, func() time.Time { return now })
	e, err := j.Start(Run{Job: "reconcile"})
	if err != nil {
		t.Fatal(err)
	}
	e.Finish(End{Status: OK})
	if err := os.WriteFile(filepath.Join(dir, e.Run().ID+".json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	if _, err := j.Start(Run{Job: "export"}); err != nil {
		t.Fatal(err)
	}
	runs, err := List(dir, now)
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	r := runs[1]
	if r.Job != "reconcile" || r.Status != Killed || r.ExitCode != KilledExitCode || !r.Started.Equal(now.Add(-time.Minute)) {
		t.Errorf("the unreadable run: %+v", r)
	}
}
