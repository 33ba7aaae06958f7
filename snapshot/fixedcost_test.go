package snapshot

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// A new store publishes nothing before its first snapshot publishes or
// fails: opening it builds no empty read model, and readers find no
// store (ErrNoStore); the failure of its first snapshot publishes the
// model, which shows it.
func TestANewStorePublishesNothingBeforeItsFirstSnapshot(t *testing.T) {
	t.Parallel()
	o := storeconfig.DefaultOptions()
	o.Out, o.DuckDB.Threads = t.TempDir(), 1
	cfg := testCfg{Options: o}
	for range 2 {
		openStore(t, cfg).Close()
		if db, err := OpenRead(context.Background(), cfg.Options); !errors.Is(err, ErrNoStore) {
			if db != nil {
				db.Close()
			}
			t.Fatalf("a store opened before any snapshot: OpenRead gives %v, want ErrNoStore", err)
		}
		for _, p := range []string{cfg.Out + "/billsnap.duckdb", cfg.Out + "/.billsnap/model.json", cfg.Out + "/records"} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("a store opened before any snapshot has %s", p)
			}
		}
	}
	if !Exists(cfg.Options) {
		t.Error("a store opened is none (Exists): status would not show its runs")
	}
	s := openStore(t, cfg)
	run, err := s.Begin(context.Background(), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Fail("stopped by the test"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var status string
	if err := readDB(t, cfg).QueryRow("SELECT status FROM snapshots WHERE id = ?", run.ID).Scan(&status); err != nil || status != StatusFailed {
		t.Errorf("the read model after the first snapshot failed: status %q, %v", status, err)
	}
}

// What a snapshot received of each field is read back from the read model
// as Publish recorded it, every figure in its column.
func TestFieldsReadWhatPublishWrote(t *testing.T) {
	t.Parallel()
	cfg, sum, _ := publishedStore(t)
	got, err := readmodel.Fields(context.Background(), readDB(t, cfg), sum.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(sum.Fields)
	manifest.SortFields(want, catalog.Tables())
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%d fields read back, %d published", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("read back %+v\npublished %+v", got[i], want[i])
		}
	}
}
