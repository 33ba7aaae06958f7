package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// runQuery runs one SQL statement on the snapshot database, read-only, and
// prints the result as a table: the DuckDB CLI is not needed to look. It
// takes the store flags only (--config, --out), before or after the
// statement.
func runQuery(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "query", "[--max-rows N] [store flags] SQL")
	sf := addStoreFlags(fs)
	maxRows := fs.Int("max-rows", 100, "print at most this many rows")
	statement, err := parseWithOneArg(fs, args, "one SQL statement, quoted,")
	if err != nil {
		return err
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	if err := sf.requireStore(cfg); err != nil {
		return err
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := readmodel.Query(ctx, db, statement)
	if se := (*readmodel.StatementError)(nil); errors.As(err, &se) {
		return job.Usage(err)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	return printRows(env.stdout, rows, *maxRows)
}

// parseWithOneArg parses args, flags before or after one argument, and
// returns the argument; what names it for the error of none or several.
func parseWithOneArg(fs *cliFlags, args []string, what string) (string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", flagError(fs, err)
		}
		if fs.NArg() == 0 {
			break
		}
		rest, args = append(rest, fs.Arg(0)), fs.Args()[1:]
	}
	if len(rest) != 1 {
		return "", job.Usagef("want %s not %d arguments", what, len(rest))
	}
	return rest[0], nil
}

// printRows prints at most maxRows rows as a table, every cell and column
// name with its control characters escaped (termsafe.String), then how
// many rows there were when some are not shown.
func printRows(w io.Writer, rows *sql.Rows, maxRows int) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, c := range cols {
		cols[i] = termsafe.String(c)
	}
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
			cells[i] = termsafe.String(cell(v))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	if n > maxRows {
		fmt.Fprintf(w, "(%s, %d shown)\n", plural.Of(n, "row"), maxRows)
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
