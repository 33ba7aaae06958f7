package ingest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xitongsys/parquet-go-source/local"
	"github.com/xitongsys/parquet-go/writer"

	"github.com/billsnap/billsnap/catalog"
)

// The pages the writer encodes itself are the bytes parquet-go's own CSV
// writer wrote for the same rows (values, levels, page cuts, headers,
// statistics, row groups, footer), for each codec and number of encoding
// goroutines. The rows have NULLs everywhere but where a page starts:
// there parquet-go's page null count is one short, and ours is not.
func TestPagesAreParquetGosOwn(t *testing.T) {
	t.Parallel()
	tbl := allKinds()
	small := testSettings
	small.RowGroupSize = 1 << 20
	for _, tc := range []struct {
		cfg          Settings
		rows, groups int
	}{
		{small, 6_543, 2},
		{Settings{Compression: "none", PageSize: 256 << 10, RowGroupSize: 1 << 20, Writers: 3, RowsPerFile: 1_000_000}, 6_543, 2},
		{Settings{Compression: "zstd", PageSize: 64 << 10, RowGroupSize: 1 << 20, Writers: 1, RowsPerFile: 1_000_000}, 1_234, 1},
	} {
		cfg := tc.cfg
		t.Run(fmt.Sprintf("%s,%d", cfg.Compression, cfg.Writers), func(t *testing.T) {
			rows := mixedRows(tc.rows, cfg.Writers)
			dir := t.TempDir()
			p := newPartWriter(tbl, dir, cfg)
			if err := p.reset(); err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if err := p.write(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "part-00000.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			want, groups := referenceFile(t, tbl, cfg, filepath.Join(dir, "reference.parquet"), rows)
			if groups < tc.groups {
				t.Errorf("%d row groups: the test wants %d or more", groups, tc.groups)
			}
			if !bytes.Equal(got, want) {
				n := 0
				for n < min(len(got), len(want)) && got[n] == want[n] {
					n++
				}
				t.Errorf("the file (%d bytes) differs from parquet-go's (%d bytes) at byte %d", len(got), len(want), n)
			}
		})
	}
}

// referenceFile writes rows to path as the writer did before it encoded
// pages itself: parquet-go's CSV writer, flushed every flushRows rows,
// each row group's null counts set as countNulls sets them; and how many
// row groups it has.
func referenceFile(t *testing.T, tbl catalog.Table, cfg Settings, path string, rows [][]any) ([]byte, int) {
	t.Helper()
	f, err := local.NewLocalFileWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := writer.NewCSVWriter(tbl.ParquetSchema(), f, int64(cfg.Writers))
	if err != nil {
		t.Fatal(err)
	}
	w.CompressionType, w.PageSize, w.RowGroupSize = codecs[cfg.Compression], cfg.PageSize, cfg.RowGroupSize
	nulls, counted := make([]int64, len(rows[0])), 0
	count := func() {
		if g := w.Footer.RowGroups; len(g) > counted {
			for k, c := range g[len(g)-1].Columns {
				n := nulls[k]
				c.MetaData.Statistics.NullCount = &n
			}
			clear(nulls)
			counted = len(g)
		}
	}
	for i, r := range rows {
		for k, v := range r {
			if v == nil {
				nulls[k]++
			}
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		count()
		if (i+1)%flushRows == 0 {
			if err := w.Flush(false); err != nil {
				t.Fatal(err)
			}
			count()
		}
	}
	if err := w.Flush(true); err != nil {
		t.Fatal(err)
	}
	count()
	groups := len(w.Footer.RowGroups)
	if err := w.WriteStop(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, groups
}

// allKinds is a table with a column of every kind, and field IDs.
func allKinds() catalog.Table {
	t := catalog.Table{Name: "kinds", ParentColumn: "parent_id", FieldIDs: map[string]int{}}
	for i, k := range []catalog.Kind{catalog.String, catalog.Timestamp, catalog.Money, catalog.Quantity,
		catalog.Int32, catalog.Int64, catalog.Bool, catalog.Float} {
		name := strings.ToLower(k.String())
		t.Columns = append(t.Columns, catalog.Column{Name: name, Field: name, Kind: k})
		t.FieldIDs[name] = i + 3
	}
	t.FieldIDs["id"], t.FieldIDs["parent_id"], t.FieldIDs["_raw"] = 1, 2, 40
	return t
}

// mixedRows are n rows of allKinds: NULLs in every typed column but never
// in the first row of an encoding run (of writers runs a flush), and raw
// JSON long enough that the _raw column's pages are cut by size.
func mixedRows(n, writers int) [][]any {
	rng := rand.New(rand.NewPCG(49, 1))
	starts := map[int]bool{}
	for f := 0; f < n; f += flushRows {
		m := min(flushRows, n-f)
		d := (m + writers - 1) / writers
		for r := 0; r*d < m; r++ {
			starts[f+r*d] = true
		}
	}
	rows := make([][]any, n)
	for i := range rows {
		nullable := func(v any) any {
			if !starts[i] && rng.IntN(5) == 0 {
				return nil
			}
			return v
		}
		note := make([]byte, 400+rng.IntN(400))
		for k := range note {
			note[k] = byte('a' + rng.IntN(26))
		}
		raw := fmt.Sprintf(`{"ID":"%08x","Note":"%s"}`, rng.Uint32(), note)
		rows[i] = []any{
			fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.Uint32(), i),
			fmt.Sprintf("p-%d", rng.IntN(500)),
			nullable(fmt.Sprintf("text %d ü", rng.IntN(10_000))),
			nullable(rng.Int64N(4e15) - 2e15),
			nullable(rng.Int64N(1e9) - 5e8),
			nullable(rng.Int64N(1e12)),
			nullable(rng.Int32() - 1<<30),
			nullable(rng.Int64() - 1<<62),
			nullable(rng.IntN(2) == 0),
			nullable(rng.NormFloat64() * 1e6),
			raw,
		}
	}
	return rows
}
