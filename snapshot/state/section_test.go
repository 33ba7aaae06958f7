package state

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// A section is all or nothing: what it wrote and its commit hooks happen
// only when fn succeeds; when it fails, its abort hooks run and the state
// is as it was.
func TestSectionCommitsOrAbortsWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, dir := testEngine(t, 1)
	f := File{Path: filepath.Join(dir, "state.duckdb"), Lock: filepath.Join(dir, "state.lock"), Engine: e}
	var events []string
	section := func(n int, fail error) error {
		return f.Update(ctx, func(sec *Tx) error {
			sec.BeforeCommit(func() error { events = append(events, "before"); return nil })
			sec.OnCommit(func() error { events = append(events, "commit"); return nil })
			sec.OnAbort(func() { events = append(events, "abort") })
			if _, err := sec.DB.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS t (n INTEGER); INSERT INTO t VALUES (?)", n); err != nil {
				return err
			}
			return fail
		})
	}
	if err := section(1, nil); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := section(2, boom); !errors.Is(err, boom) {
		t.Fatalf("a failed section: %v", err)
	}
	var sum int
	err := f.Update(ctx, func(sec *Tx) error { return sec.DB.QueryRowContext(ctx, "SELECT sum(n) FROM t").Scan(&sum) })
	if err != nil || sum != 1 {
		t.Errorf("the state holds sum %d (%v), want 1: the failed section's row is not in it", sum, err)
	}
	if want := []string{"before", "commit", "abort"}; !slices.Equal(events, want) {
		t.Errorf("hooks ran %v, want %v", events, want)
	}
}

// A section's statements run on one thread and a reading's on the
// configured threads, in the kept instance, in turn, and in an instance
// of its own that a reading gets while a section holds the kept one.
func TestSectionsRunOnOneThreadAndReadingsOnTheConfiguredThreads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e, dir := testEngine(t, 3)
	path := filepath.Join(dir, "state.duckdb")
	threads := func(what string, db Querier, want int) {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&n); err != nil || n != want {
			t.Errorf("%s runs on %d threads (%v), want %d", what, n, err, want)
		}
	}
	for range 2 {
		sec, err := e.Open(path, BlockSize)
		if err != nil {
			t.Fatal(err)
		}
		threads("a section", sec, 1)
		reading, err := e.OpenReading(path) // the kept instance is held: one of its own
		if err != nil {
			t.Fatal(err)
		}
		threads("a reading beside a section", reading, 3)
		e.End(ctx, reading)
		if err := e.End(ctx, sec); err != nil {
			t.Fatal(err)
		}
		reading, err = e.OpenReading(path) // the kept instance
		if err != nil {
			t.Fatal(err)
		}
		threads("a reading", reading, 3)
		e.End(ctx, reading)
	}
}

// testEngine is an engine of threads threads in a temporary directory,
// dir, stopped when the test ends.
func testEngine(t *testing.T, threads int) (e *Engine, dir string) {
	dir = t.TempDir()
	e = NewEngine(Settings{Threads: threads, MemoryLimit: "256MB", RowGroupSize: 2048}, filepath.Join(dir, "tmp"))
	t.Cleanup(func() { e.Close() })
	return e, dir
}
