package state

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// What ended processes left in a folder goes and what running ones wrote
// stays; with an age, another running process's entries older than it go
// too (its number may have been used again), but never this process's.
//
// Not parallel: between its fork and exec the child shares every open
// file of this process, so a lock another test closes meanwhile stays
// held (TestLockWaitsForTheHolder then waits its fake time out).
func TestSweepEndedRemovesWhatEndedProcessesLeft(t *testing.T) {
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	own, other, gone := strconv.Itoa(os.Getpid()), strconv.Itoa(os.Getppid()), strconv.Itoa(ended.Process.Pid)
	for _, c := range []struct {
		field int
		age   time.Duration
		names []string
		want  []string
	}{
		{1, 0, []string{"findings." + own + ".1.parquet", "findings." + other + ".2.parquet", "findings." + gone + ".3.parquet", "unjudged"},
			[]string{"findings." + own + ".1.parquet", "findings." + other + ".2.parquet"}},
		{1, time.Hour, []string{"findings." + own + ".1.parquet", "findings." + other + ".2.parquet", "findings." + gone + ".3.parquet"},
			[]string{"findings." + own + ".1.parquet"}},
		{0, 0, []string{own + ".1", other + ".1", gone + ".1"}, []string{own + ".1", other + ".1"}},
	} {
		dir := t.TempDir()
		old := time.Now().Add(-2 * time.Hour)
		for _, name := range c.names {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		SweepEnded(dir, c.field, c.age)
		var left []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			left = append(left, e.Name())
		}
		slices.Sort(c.want)
		if !slices.Equal(left, c.want) {
			t.Errorf("field %d, age %v: left %v, want %v", c.field, c.age, left, c.want)
		}
	}
}
