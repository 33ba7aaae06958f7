package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" driver of database/sql

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/state"
)

// anchorResult is what DuckDB made of the pages: the rows of each list's
// table and the process CPU (user + system) the tables and their Parquet
// took.
type anchorResult struct {
	rows  map[string]int64
	total int64
	cpu   time.Duration
}

// duckdbAnchor is the benchmark's anchor, which billsnap's export is
// measured against: it fetches every page of every list from url (as the
// floor does) into dir/pages/TABLE/, then, in this process and on one
// DuckDB thread, reads each list's pages with read_json into one table of
// its records (the pages' Items unnested, a column per field) and writes
// it with COPY to dir/parquet/TABLE.parquet, snappy. Only the tables and
// their Parquet are timed, as the growth of getrusage(RUSAGE_SELF): every
// thread of the process is counted, as the export's child is counted
// whole, and nothing else runs in it meanwhile.
func duckdbAnchor(ctx context.Context, url, dir string, concurrency int) (anchorResult, error) {
	pages := filepath.Join(dir, "pages")
	tables, err := keepPages(ctx, url, pages, concurrency)
	if err != nil {
		return anchorResult{}, err
	}
	return anchorTables(ctx, pages, filepath.Join(dir, "parquet"), tables)
}

// keepPages fetches every page of every list into pages/TABLE/NNNNNN.json
// and returns the lists' tables.
func keepPages(ctx context.Context, url, pages string, concurrency int) ([]string, error) {
	colls, _ := catalog.Collections(benchConfig(url, "", concurrency, 0).Collections)
	var tables []string
	for _, c := range colls {
		if err := os.MkdirAll(filepath.Join(pages, c.Table), 0o755); err != nil {
			return nil, err
		}
		tables = append(tables, c.Table)
	}
	_, err := fetchPages(ctx, url, concurrency, func(table string, page int, body []byte) error {
		return os.WriteFile(filepath.Join(pages, table, fmt.Sprintf("%06d.json", page)), body, 0o644)
	})
	return tables, err
}

// anchorTables loads each table's pages into an in-memory DuckDB on one
// thread and copies the table to out as Parquet, timing both.
func anchorTables(ctx context.Context, pages, out string, tables []string) (anchorResult, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return anchorResult{}, err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return anchorResult{}, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return anchorResult{}, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET threads = 1"); err != nil {
		return anchorResult{}, err
	}
	res := anchorResult{rows: map[string]int64{}}
	runtime.GC() // nothing of the fetch left for the collector to do meanwhile
	before := processCPU()
	for _, t := range tables {
		if err := anchorTable(ctx, conn, pages, out, t); err != nil {
			return anchorResult{}, fmt.Errorf("anchor: %s: %w", t, err)
		}
	}
	res.cpu = processCPU() - before
	for _, t := range tables {
		var n int64
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM "+state.QuoteIdent(t)).Scan(&n); err != nil {
			return anchorResult{}, err
		}
		res.rows[t] = n
		res.total += n
	}
	return res, nil
}

// anchorTable makes table's records a table of their own and writes it
// as snappy Parquet.
func anchorTable(ctx context.Context, conn *sql.Conn, pages, out, table string) error {
	glob := state.SQLString(filepath.Join(pages, table, "*.json"))
	create := fmt.Sprintf("CREATE TABLE %s AS SELECT unnest(Items, max_depth := 2) FROM read_json(%s)",
		state.QuoteIdent(table), glob)
	if _, err := conn.ExecContext(ctx, create); err != nil {
		return err
	}
	copyTo := fmt.Sprintf("COPY %s TO %s (FORMAT parquet, COMPRESSION snappy)",
		state.QuoteIdent(table), state.SQLString(filepath.Join(out, table+".parquet")))
	_, err := conn.ExecContext(ctx, copyTo)
	return err
}

// processCPU is the CPU (user + system) every thread of this process has
// used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
