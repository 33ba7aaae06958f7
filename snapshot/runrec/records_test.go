package runrec_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/snapshot/runrec"
)

// The records' runs are the journal as it was at each publish, and a
// publish reads the journal's files of the runs whose end it has not on
// record only: an ended run's row is taken from the record (its file,
// rewritten behind billsnap's back, is not read again), a running run is
// read again until it ends, and a pruned run leaves the record. So also
// in a store under a directory DuckDB would read as a Hive partition.
func TestThePublishedRunsReadOnlyRunsNotEnded(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"store", filepath.Join("env=prod", "store")} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			publishedRunsReadOnlyRunsNotEnded(t, layout.Dir(filepath.Join(t.TempDir(), dir)))
		})
	}
}

func publishedRunsReadOnlyRunsNotEnded(t *testing.T, at layout.Dir) {
	ctx := context.Background()
	db := stateDB(t)
	recs := runrec.NewRecords(at, slog.New(slog.DiscardHandler), time.Now)
	j := journal.New(at.Runs(), time.Now)
	ended, err := j.Start(journal.Run{Job: "export"})
	if err != nil {
		t.Fatal(err)
	}
	ended.Finish(journal.End{Status: journal.OK})
	running, err := j.Start(journal.Run{Job: "reconcile"})
	if err != nil {
		t.Fatal(err)
	}
	publish := func() map[string]string {
		t.Helper()
		next, err := recs.Build(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if err := recs.Show(next); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		rows, err := db.Query("SELECT id, status FROM read_parquet(?)", filepath.Join(recs.Link(), "runs.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, status string
			rows.Scan(&id, &status)
			out[id] = status
		}
		return out
	}
	endedID, runningID := ended.Run().ID, running.Run().ID
	if got := publish(); got[endedID] != journal.OK || got[runningID] != journal.Running {
		t.Fatalf("the runs published: %v", got)
	}
	file := filepath.Join(at.Runs(), endedID+".json")
	b, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(b), `"status":"ok"`, `"status":"failed"`, 1)), 0o644)
	running.Finish(journal.End{Status: journal.Material, ExitCode: 3})
	if got := publish(); got[endedID] != journal.OK || got[runningID] != journal.Material {
		t.Errorf("after the running run ended: %v (the ended run's file says failed and is not to be read again)", got)
	}
	os.Remove(file)
	if got := publish(); got[endedID] != "" || got[runningID] != journal.Material {
		t.Errorf("after the ended run was pruned: %v", got)
	}
}
