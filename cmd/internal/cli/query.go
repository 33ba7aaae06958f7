package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/billsnap/billsnap/cmd/internal/changes"
	"github.com/billsnap/billsnap/cmd/internal/readonly"
	"github.com/billsnap/billsnap/cmd/internal/relations"
	"github.com/billsnap/billsnap/cmd/internal/resultset"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// queryAbout is what query --help says under its usage line.
const queryAbout = `Runs one SQL statement on the store's read model, DIR/billsnap.duckdb, and
prints its rows. The read model's tables and views are documented in
docs/store.md ("The read model"); --tables lists them, --columns TABLE
one's columns, each described. The relations columns and codes hold the
same descriptions, and the codes of coded columns, for any reader. Query
only reads: a statement that would write (COPY … TO, CREATE, INSERT,
DELETE, ATTACH, INSTALL, SET …) is refused before it runs (exit 2), and
DuckDB reads only the store's own files and writes none.
`

// runQuery runs one SQL statement on the snapshot database, read-only
// (readonly.LockDown, readonly.RefuseWrites), and prints the result as a table, CSV, JSON
// or Markdown: the DuckDB CLI is not needed to look. --tables and
// --columns list the read model's relations and a relation's columns
// instead. It takes the store flags only (--config, --out), before or
// after the statement.
func runQuery(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "query", "[--format table|csv|json|markdown] [--max-rows N] [--as-of TIME|SNAPSHOT] [store flags] SQL | --tables | --columns TABLE")
	fs.about = queryAbout
	sf := addStoreFlags(fs)
	format := fs.String("format", "table", "how to print the rows: "+resultset.Formats+" (RFC 4180 CSV; JSON an array of objects, decimals as strings)")
	maxRows := fs.Int("max-rows", 100, "print at most this many rows (csv and json: all rows unless given)")
	tables := fs.Bool("tables", false, "list the read model's tables and views, each with what it holds")
	columns := fs.String("columns", "", "list the columns of this table or view, with their types, descriptions and the service's fields they come from")
	asOf := fs.String("as-of", "", "read every latest_<table> as it stood at this time (2026-11-01, 2026-11-01T12:00:00Z) or snapshot ID, from the store's history")
	statement, err := parseQueryArgs(fs, args, func() bool { return *tables || *columns != "" })
	if err != nil {
		return err
	}
	if err := resultset.CheckFormat(*format); err != nil {
		return err
	}
	limit := *maxRows
	if (*format == "csv" || *format == "json") && !given(fs, "max-rows") {
		limit = -1
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	if err := sf.requireStore(cfg); err != nil {
		return err
	}
	db, err := openRead(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := readonly.LockDown(ctx, db, cfg.Out); err != nil {
		return err
	}
	if *asOf != "" {
		if err := readAsOf(ctx, db, cfg, *asOf); err != nil {
			return err
		}
	}
	switch {
	case *tables:
		return relations.Print(ctx, env.stdout, db, *format)
	case *columns != "":
		return relations.PrintColumns(ctx, env.stdout, db, *columns, *format)
	}
	return queryRows(ctx, env, db, statement, *format, limit)
}

// readAsOf makes db read the store as it stood at value, a time or a
// snapshot ID of its history (readmodel.ReadAsOf), on its one
// connection. A value that is neither, or before the history, is a usage
// error.
func readAsOf(ctx context.Context, db *sql.DB, cfg config.Config, value string) error {
	db.SetMaxOpenConns(1)
	ts, ok := changes.ParseMoment(value)
	if !ok {
		snaps, err := readmodel.HistorySnapshots(ctx, db)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(snaps, func(h readmodel.HistorySnapshot) bool { return h.ID == value })
		if i < 0 {
			return usage.Errorf("--as-of %q is neither a time (2026-11-01 or 2026-11-01T12:00:00Z) nor a snapshot of the store's history", termsafe.FirstLine(value))
		}
		ts = snaps[i].At
	}
	err := snapshot.ReadAsOf(ctx, db, cfg.Options, ts)
	if errors.Is(err, readmodel.ErrBeforeHistory) {
		return usage.Errorf("--as-of: %v", err)
	}
	return err
}

// openRead opens cfg's read model to read (snapshot.OpenRead): a store
// whose first snapshot is under way is none yet, a usage error.
func openRead(ctx context.Context, cfg config.Config) (*sql.DB, error) {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if errors.Is(err, snapshot.ErrNoStore) {
		return nil, usage.Wrap(err)
	}
	return db, err
}

// queryRows runs statement on db and prints its rows; for a CSV or JSON
// cut short by --max-rows, stderr says how many rows there were.
func queryRows(ctx context.Context, env *cliEnv, db *sql.DB, statement, format string, limit int) error {
	if err := readonly.RefuseWrites(ctx, db, statement); err != nil {
		return err
	}
	rows, err := readmodel.Query(ctx, db, statement)
	if se := (*readmodel.StatementError)(nil); errors.As(err, &se) {
		return usage.Wrap(err)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	total, shown, err := resultset.Print(env.stdout, rows, format, limit)
	if err == nil && total != shown && (format == "csv" || format == "json") {
		fmt.Fprintf(env.stderr, "billsnap query: %s, %d printed (--max-rows)\n", plural.Of(total, "row"), shown)
	}
	return err
}

// parseQueryArgs parses query's args, flags before or after the
// statement, and returns the statement: one, or none when listing (after
// the parse) says the command lists (--tables, --columns).
func parseQueryArgs(fs *cliFlags, args []string, listing func() bool) (string, error) {
	rest, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	switch {
	case listing() && len(rest) > 0:
		return "", usage.Errorf("--tables and --columns list, and take no SQL statement (%q)", rest[0])
	case listing():
		return "", nil
	case len(rest) != 1:
		return "", usage.Errorf("want one SQL statement, quoted, not %d arguments", len(rest))
	}
	return rest[0], nil
}

// parseWithOneArg parses args, flags before or after one argument, and
// returns the argument; what names it for the error of none or several.
func parseWithOneArg(fs *cliFlags, args []string, what string) (string, error) {
	rest, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	if len(rest) != 1 {
		return "", usage.Errorf("want %s not %d arguments", what, len(rest))
	}
	return rest[0], nil
}

// parseArgs parses args, flags before or after the arguments, and
// returns the arguments.
func parseArgs(fs *cliFlags, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(fs, err)
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest, args = append(rest, fs.Arg(0)), fs.Args()[1:]
	}
}
