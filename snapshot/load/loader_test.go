package load

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/billsnap/billsnap/catalog"
)

// A table's step (Target.Loaded) runs beside the loads: Ended returns
// without waiting for it. A re-walk's drop of the table's files waits for
// the step under way, which may be reading them, and the loader's Wait
// for every step.
func TestStepsRunBesideTheLoadsAndADropWaitsForThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openMemory(t)
		steps := openMemory(t)
		if _, err := db.Exec("CREATE TABLE latest_tax_rules (snapshot_id VARCHAR, id VARCHAR)"); err != nil {
			t.Fatal(err)
		}
		staged := filepath.Join(t.TempDir(), "part-1.parquet")
		if err := os.WriteFile(staged, []byte("a file the step reads"), 0o644); err != nil {
			t.Fatal(err)
		}
		release, seen := make(chan struct{}), make(chan bool, 1)
		step := func(table string) error {
			<-release
			_, err := os.Stat(staged)
			seen <- err == nil
			return nil
		}
		tables, _ := catalog.ApplyFields(nil)
		l := Start(Target{Ctx: context.Background(), DB: db, Snap: "s1", Tables: tables,
			Staged: func(string) ([]string, int64) { return nil, 0 }, Loaded: step, StepDB: steps},
			Settings{LoadMemoryLimit: "32MB", MemoryLimit: "256MB", LoadThreads: 1}, slog.New(slog.DiscardHandler))
		if _, err := l.Ended("tax_rules"); err != nil { // its step waits for release
			t.Fatal(err)
		}
		l.Dropped("tax_rules", []string{staged})
		synctest.Wait()
		if _, err := os.Stat(staged); err != nil {
			t.Fatalf("the re-walk's drop did not wait for the step under way: %v", err)
		}
		close(release)
		if err := l.Wait(); err != nil {
			t.Fatal(err)
		}
		if !<-seen {
			t.Error("the step did not find the file it reads")
		}
		if _, err := os.Stat(staged); !os.IsNotExist(err) {
			t.Errorf("the drop after the step: %v, want the file removed", err)
		}
	})
}

func openMemory(t *testing.T) *sql.DB {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
