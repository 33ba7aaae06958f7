package readmodel_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// snapshotRows are four snapshots: two complete that started at the same
// moment (the ID breaks the tie), one failed after them, one running.
const snapshotRows = `INSERT INTO snapshots (id, started, finished, status) VALUES
	('a', TIMESTAMP '2026-11-01 03:00:00', TIMESTAMP '2026-11-01 03:10:00', 'complete'),
	('b', TIMESTAMP '2026-11-01 03:00:00', TIMESTAMP '2026-11-01 03:05:00', 'complete'),
	('c', TIMESTAMP '2026-11-02 03:00:00', TIMESTAMP '2026-11-02 03:01:00', 'failed'),
	('d', TIMESTAMP '2026-11-03 03:00:00', NULL, 'running')`

func at(day, hour, min int) time.Time { return time.Date(2026, 11, day, hour, min, 0, 0, time.UTC) }

func TestSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, snapshotRows, "CREATE OR REPLACE VIEW latest_snapshot AS SELECT * FROM snapshots WHERE id = 'b'")
	all, err := readmodel.Snapshots(ctx, db, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(ss []readmodel.Snapshot) (out []string) {
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	if got := ids(all); !slices.Equal(got, []string{"d", "c", "b", "a"}) {
		t.Errorf("Snapshots: %v, want newest first, the ID breaking ties", got)
	}
	if !all[0].Finished.IsZero() || !all[1].Finished.Equal(at(2, 3, 1)) {
		t.Errorf("Snapshots' finish: %v and %v, want zero while running", all[0].Finished, all[1].Finished)
	}
	if two, err := readmodel.Snapshots(ctx, db, 2); err != nil || !slices.Equal(ids(two), []string{"d", "c"}) {
		t.Errorf("Snapshots(2): %v, %v", ids(two), err)
	}
	if s, err := readmodel.ByID(ctx, db, "d"); err != nil || s.Status != "running" || !s.Finished.Equal(at(3, 3, 0)) {
		t.Errorf("ByID(d): %+v, %v; want its start for a finish", s, err)
	}
	if _, err := readmodel.ByID(ctx, db, "x"); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("ByID(x): %v, want sql.ErrNoRows", err)
	}
	if s, err := readmodel.Latest(ctx, db); err != nil || s.ID != "b" {
		t.Errorf("Latest: %+v, %v", s, err)
	}
	for _, c := range []struct{ of, want string }{{"d", "b"}, {"b", "a"}, {"a", ""}} {
		s, err := readmodel.ByID(ctx, db, c.of)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := readmodel.PreviousComplete(ctx, db, s); err != nil || got != c.want {
			t.Errorf("PreviousComplete(%s): %q, %v; want %q", c.of, got, err, c.want)
		}
	}
}

func TestCompleteSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	empty := state(t)
	if ids, err := readmodel.CompleteIDs(ctx, empty); err != nil || len(ids) != 0 {
		t.Errorf("CompleteIDs of none: %v, %v", ids, err)
	}
	if oldest, err := readmodel.OldestComplete(ctx, empty); err != nil || !oldest.IsZero() {
		t.Errorf("OldestComplete of none: %v, %v", oldest, err)
	}
	if id, _, err := readmodel.LastComplete(ctx, empty); err != nil || id != "" {
		t.Errorf("LastComplete of none: %q, %v", id, err)
	}
	db := state(t, snapshotRows)
	if ids, err := readmodel.CompleteIDs(ctx, db); err != nil || !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("CompleteIDs: %v, %v; want oldest first", ids, err)
	}
	if oldest, err := readmodel.OldestComplete(ctx, db); err != nil || !oldest.Equal(at(1, 3, 0)) {
		t.Errorf("OldestComplete: %v, %v", oldest, err)
	}
	if id, fin, err := readmodel.LastComplete(ctx, db); err != nil || id != "a" || !fin.Equal(at(1, 3, 10)) {
		t.Errorf("LastComplete: %q at %v, %v; want the one that finished last", id, fin, err)
	}
	for id, want := range map[string]bool{"c": true, "d": false, "x": false} {
		if got, err := readmodel.Manifested(ctx, db, id); err != nil || got != want {
			t.Errorf("Manifested(%s): %v, %v; want %v", id, got, err, want)
		}
	}
}
