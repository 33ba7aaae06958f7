package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/url"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/config"
)

// runQuery runs one SQL statement on the snapshot database, read-only, and
// prints the result as a table: the DuckDB CLI is not needed to look.
func runQuery(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "query", "[--out DIR] SQL")
	out := fs.String("out", "", "output directory (env "+config.EnvOut+"; default billsnap-data)")
	maxRows := fs.Int("max-rows", 100, "print at most this many rows")
	if err := fs.Parse(args); err != nil {
		return parseFlags(fs, args)
	}
	if fs.NArg() != 1 {
		return usagef("want one SQL statement, quoted")
	}
	dir := *out
	if dir == "" {
		dir = config.Default().Out
		if v := env.getenv(config.EnvOut); v != "" {
			dir = v
		}
	}
	dsn := filepath.Join(dir, config.Default().DuckDB.File) + "?" + url.Values{"access_mode": {"READ_ONLY"}}.Encode()
	db, err := sql.Open("duckdb", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	defer rows.Close()
	return printRows(env.stdout, rows, *maxRows)
}

func printRows(w io.Writer, rows *sql.Rows, maxRows int) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if n++; n > maxRows {
			continue
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = cell(v)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	if n > maxRows {
		fmt.Fprintf(w, "(%d rows, %d shown)\n", n, maxRows)
	}
	return rows.Err()
}

// cell prints a value: decimals with all their digits, times in UTC, JSON
// as JSON.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case duckdb.Decimal:
		return fixedDecimal(x.Value, int(x.Scale))
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05Z07:00")
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// fixedDecimal writes v / 10^scale with exactly scale decimals.
func fixedDecimal(v *big.Int, scale int) string {
	s := new(big.Int).Abs(v).String()
	if len(s) <= scale {
		s = strings.Repeat("0", scale-len(s)+1) + s
	}
	if scale > 0 {
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}
