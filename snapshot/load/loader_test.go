package load

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/billsnap/billsnap/catalog"
)

// A table's step (Target.Loaded) runs beside the loads: Ended returns
// without waiting for it. The step is handed the table's files as the
// walk left them, not those a re-walk writes since. A re-walk's drop of
// the files waits for the step under way, which may be reading them, and
// the loader's Wait for every step.
func TestStepsRunBesideTheLoadsAndADropWaitsForThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := openMemory(t)
		steps := openMemory(t)
		tables, _ := catalog.ApplyFields(nil)
		taxRules, _ := catalog.Find(tables, "tax_rules")
		units, _ := catalog.Find(tables, "units_of_measure")
		staged := filepath.Join(t.TempDir(), "part-00000.parquet")
		cols := strings.Join(taxRules.LatestColumnNames(), ", ")
		for _, q := range []string{taxRules.CreateSQL("latest_tax_rules"), units.CreateSQL("latest_units_of_measure"),
			fmt.Sprintf("COPY (SELECT %s FROM latest_tax_rules) TO '%s' (FORMAT parquet)", cols, staged)} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		files := map[string][]string{"tax_rules": {staged}}
		release, seen := make(chan struct{}), make(chan []string, 1)
		step := func(table string, files []string) error {
			if table == "units_of_measure" {
				<-release // the step under way; tax_rules' waits behind it
				return nil
			}
			for _, f := range files {
				if _, err := os.Stat(f); err != nil {
					return err
				}
			}
			seen <- files
			return nil
		}
		l := Start(Target{Ctx: context.Background(), DB: db, Snap: "s1", Tables: tables,
			Staged: func(table string) ([]string, int64) { return files[table], 0 }, Loaded: step, StepDB: steps},
			Settings{LoadMemoryLimit: "32MB", MemoryLimit: "256MB", LoadThreads: 1}, slog.New(slog.DiscardHandler))
		for _, coll := range []string{"units_of_measure", "tax_rules"} {
			if _, err := l.Ended(coll); err != nil { // returns before its step
				t.Fatal(err)
			}
		}
		files["tax_rules"] = append(files["tax_rules"], filepath.Join(filepath.Dir(staged), "part-00001.parquet")) // a re-walk's, being written
		l.Dropped("tax_rules", []string{staged})
		synctest.Wait()
		if _, err := os.Stat(staged); err != nil {
			t.Fatalf("the re-walk's drop did not wait for the steps queued: %v", err)
		}
		close(release)
		if err := l.Wait(); err != nil {
			t.Fatal(err)
		}
		if got := <-seen; !slices.Equal(got, []string{staged}) {
			t.Errorf("the step was handed %v, want the walk's file %s only", got, staged)
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
