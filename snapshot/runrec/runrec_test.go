package runrec

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"

	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/state"
)

// A run file retired by a section is deleted once the section commits;
// one added by a section that aborts is not in the index, and the next
// section's sweep removes it.
func TestRetiredFilesGoAtCommitAndAbortedOnesAtTheSweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := layout.Dir(t.TempDir())
	if err := os.MkdirAll(at.Private(), 0o755); err != nil {
		t.Fatal(err)
	}
	e := state.NewEngine(state.Settings{Threads: 1, MemoryLimit: "256MB", RowGroupSize: 2048}, at.StateTemp())
	defer e.Close()
	f := state.File{Path: at.State(), Lock: at.StateLock(), Engine: e}
	h := New(at)
	add := func(sec *Changes, db *sql.DB) (string, error) {
		file := File{Kind: Findings.Name, Snapshot: "s1"}
		var path string
		err := sec.Add(ctx, db, file, sql.NullString{String: "", Valid: true}, 0, func(p string) error {
			path = p
			return os.WriteFile(p, []byte("x"), 0o644)
		})
		return path, err
	}
	var first string
	err := f.Update(ctx, func(st *state.Tx) error {
		if _, err := st.DB.ExecContext(ctx, IndexSQL+"CREATE TABLE billsnap_meta (key VARCHAR PRIMARY KEY, value VARCHAR);"); err != nil {
			return err
		}
		var err error
		first, err = add(h.Begin(st), st.DB)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var second string
	boom := errors.New("boom")
	err = f.Update(ctx, func(st *state.Tx) error {
		sec := h.Begin(st)
		if err := sec.Retire(ctx, st.DB, "snapshot_id = ?", "s1"); err != nil {
			return err
		}
		var err error
		if second, err = add(sec, st.DB); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("the aborted section: %v", err)
	}
	if !exists(first) || !exists(second) {
		t.Fatalf("after the abort: %s there %v, %s there %v; want both (the sweep removes the second)", first, exists(first), second, exists(second))
	}
	err = f.Update(ctx, func(st *state.Tx) error {
		if err := h.Sweep(ctx, st.DB); err != nil {
			return err
		}
		return h.Begin(st).Retire(ctx, st.DB, "snapshot_id = ?", "s1")
	})
	if err != nil {
		t.Fatal(err)
	}
	if exists(second) {
		t.Errorf("%s, added by an aborted section, is still there after the sweep", second)
	}
	if exists(first) {
		t.Errorf("%s, retired by a committed section, is still there", first)
	}
	if exists(h.sweepMarker()) {
		t.Error("the sweep marker is still there after a committed section")
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
