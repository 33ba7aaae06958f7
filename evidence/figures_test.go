package evidence

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/manifest"
)

// testFigures are the snapshot's per-table figures of the fixture's
// store.
var testFigures = []manifest.TableStats{
	{Table: "invoices", Collection: "invoices", Walks: 1, Pages: 2, Received: 150, Distinct: 150, TotalCount: 150,
		ParquetRows: 150, DuckDBRows: 150, IDsSHA256: "9f1a", Seconds: 0.2, Complete: true},
	{Table: "invoice_lines", Collection: "invoices", Walks: 1, Pages: 2, Received: 310, Distinct: -1, TotalCount: -1,
		ParquetRows: 310, DuckDBRows: 310, IDsSHA256: "77b0", Seconds: 0.2, Complete: true},
}

// figures hands tables as a store's figures of snapshot SNAP1, and err.
func figures(tables []manifest.TableStats, err error) Figures {
	return func(_ context.Context, id string) ([]manifest.TableStats, error) {
		if id != "SNAP1" {
			return nil, errors.New("figures of " + id + " asked, want SNAP1")
		}
		return tables, err
	}
}

// packWith packs the fixture's store with the store's figures handed in.
func packWith(t *testing.T, fx fixture, f Figures) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	_, err := Write(context.Background(), &b, Source{Root: fx.store.Root, ParquetDir: fx.store.ParquetDir, Ledger: fx.store.Ledger,
		Figures: f, Period: testPeriod, Software: "billsnap test", Now: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)})
	return b.Bytes(), err
}

// A pack carries the snapshot's figures its caller hands in, as
// tables.json; verified against the store, tables.json is vouched for
// when the store's figures are the pack's, refused when they differ or
// when the pack lacks them, and left untied, with a note, when the store
// no longer holds them. No store's database is needed: the figures are
// handed in.
func TestTheSnapshotsFiguresAreCheckedAgainstTheStore(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	withFigures, err := packWith(t, fx, figures(testFigures, nil))
	if err != nil {
		t.Fatal(err)
	}
	_, files := unpack(t, withFigures)
	if want, _ := tablesFile("SNAP1", testFigures); !bytes.Equal(files["data/snapshot/tables.json"], want) {
		t.Fatalf("tables.json:\n%s\nwant\n%s", files["data/snapshot/tables.json"], want)
	}
	changed := slices.Clone(testFigures)
	changed[1].DuckDBRows--
	for _, c := range []struct {
		name    string
		pack    []byte
		store   Figures
		untied  []string
		note    string
		refusal string
	}{
		{"the store's figures the pack's", withFigures, figures(testFigures, nil), nil, "", ""},
		{"the store's figures changed", withFigures, figures(changed, nil), nil, "",
			"data/snapshot/tables.json: not the snapshot's figures in the store"},
		{"the store no longer holds them", withFigures, figures(nil, nil), []string{"data/snapshot/tables.json"},
			"the store no longer holds the snapshot's figures: data/snapshot/tables.json not checked", ""},
		{"the pack without them", fx.pack, figures(testFigures, nil), nil, "",
			"data/snapshot/tables.json: missing from the pack, and the store holds the snapshot's figures"},
		{"the store's figures not read", withFigures, figures(nil, errors.New("read model gone")), nil, "", "read model gone"},
		{"no figures handed in", withFigures, nil, []string{"data/snapshot/tables.json"}, "", ""},
	} {
		store := *fx.store
		store.Figures = c.store
		v, err := verifyBytes(t, context.Background(), c.pack, &store)
		switch {
		case c.refusal != "":
			if err == nil || !strings.Contains(err.Error(), c.refusal) {
				t.Errorf("%s: %v, want %q", c.name, err, c.refusal)
			}
		case err != nil || !slices.Equal(v.Untied, c.untied) || (c.note != "") != slices.Contains(v.Notes, c.note):
			t.Errorf("%s: untied %q, notes %q, %v; want untied %q, note %q", c.name, v.Untied, v.Notes, err, c.untied, c.note)
		}
	}
}

// A pack whose figures cannot be read is not written; the error is the
// figures'.
func TestAPackIsNotWrittenWithoutItsFigures(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	pack, err := packWith(t, fx, figures(nil, errors.New("read model gone")))
	if err == nil || err.Error() != "read model gone" || len(pack) != 0 {
		t.Fatalf("%d bytes, %v", len(pack), err)
	}
}

// The close's record of the snapshot is its Parquet manifest and the
// figures handed in, as a pack carries them.
func TestTheSnapshotsRecordHoldsTheFiguresHandedIn(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	dir := t.TempDir()
	paths, err := SnapshotRecord(context.Background(), fx.store.Root, fx.store.ParquetDir, "SNAP1", testFigures, dir)
	want := []string{filepath.Join(dir, "snapshot", "parquet-manifest.csv"), filepath.Join(dir, "snapshot", "tables.json")}
	if err != nil || !slices.Equal(paths, want) {
		t.Fatalf("%q, %v; want %q", paths, err, want)
	}
	got, err := os.ReadFile(paths[1])
	if wantTables, _ := tablesFile("SNAP1", testFigures); err != nil || !bytes.Equal(got, wantTables) {
		t.Fatalf("tables.json:\n%s\n%v; want\n%s", got, err, wantTables)
	}
	withFigures, err := packWith(t, fx, figures(testFigures, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, files := unpack(t, withFigures); !bytes.Equal(files["data/snapshot/tables.json"], got) {
		t.Fatalf("the pack's tables.json differs from the record's")
	}
}
