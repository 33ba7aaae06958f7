package job

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/schedule"
)

// A read model that cannot be read (here: one without the snapshots'
// manifest) is an error of schedule's Refresh naming what it read, not
// metrics silently left out.
func TestRefreshReportsAReadModelItCannotRead(t *testing.T) {
	out := layout.Dir(t.TempDir())
	now := time.Now()
	entry, err := journal.New(out.Runs(), func() time.Time { return now }).Start(journal.Run{Job: "export"})
	if err != nil {
		t.Fatal(err)
	}
	if err := entry.Finish(journal.End{Status: journal.OK, Snapshot: "s1"}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = schedule.NewMetrics().Refresh(context.Background(), out, metricsOf(db), now)
	if err == nil || !strings.Contains(err.Error(), "the manifest of snapshot s1") {
		t.Errorf("Refresh over a read model without snapshots: %v", err)
	}
}
