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
	dir := t.TempDir()
	e := NewEngine(Settings{Threads: 1, MemoryLimit: "256MB", RowGroupSize: 2048}, filepath.Join(dir, "tmp"))
	defer e.Close()
	f := File{Path: filepath.Join(dir, "state.duckdb"), Lock: filepath.Join(dir, "state.lock"), Engine: e}
	var events []string
	section := func(n int, fail error) error {
		return f.Update(ctx, func(sec *Section) error {
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
	err := f.Update(ctx, func(sec *Section) error { return sec.DB.QueryRowContext(ctx, "SELECT sum(n) FROM t").Scan(&sum) })
	if err != nil || sum != 1 {
		t.Errorf("the state holds sum %d (%v), want 1: the failed section's row is not in it", sum, err)
	}
	if want := []string{"before", "commit", "abort"}; !slices.Equal(events, want) {
		t.Errorf("hooks ran %v, want %v", events, want)
	}
}
