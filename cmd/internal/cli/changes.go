package cli

import (
	"context"
	"database/sql"

	"github.com/billsnap/billsnap/cmd/internal/changes"
	"github.com/billsnap/billsnap/cmd/internal/readonly"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// changesAbout is what changes --help says under its usage line.
const changesAbout = `Prints what changed in the service's records between two moments: each
record inserted, updated (with the fields that changed, old -> new) or
deleted, from the store's history, which only complete snapshots move.
By default the latest complete snapshot against the one before. --since and
--until take a snapshot ID or a time (2026-11-01, 2026-11-01T12:00:00Z): the
tables as they stood then, as the complete snapshot of that moment had them.
A record that changed and changed back in between is not listed.
`

// runChanges prints the changes between two moments of the store's
// history (readmodel.ChangesBetween).
func runChanges(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "changes", "[--since SNAPSHOT|TIME] [--until SNAPSHOT|TIME] [--table T] [--id ID] [--format text|json|csv] [store flags]")
	fs.about = changesAbout
	sf := addStoreFlags(fs)
	since := fs.String("since", "", "from this snapshot ID or time (default: the complete snapshot before --until)")
	until := fs.String("until", "", "to this snapshot ID or time (default: the latest complete snapshot)")
	table := fs.String("table", "", "only this table's records (customers, invoices, …)")
	id := fs.String("id", "", "only the record with this ID")
	format := fs.String("format", "text", "text (grouped by table), json (an array of objects) or csv")
	if rest, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usage.Errorf("changes takes no arguments, only flags (%q)", rest[0])
	}
	if err := changes.CheckFormat(*format); err != nil {
		return err
	}
	db, err := openToRead(ctx, env, sf)
	if err != nil {
		return err
	}
	defer db.Close()
	if *table != "" {
		if err := knownTable(ctx, db, *table); err != nil {
			return err
		}
	}
	span, err := changes.Resolve(ctx, db, *since, *until)
	if err != nil {
		return err
	}
	list, err := readmodel.ChangesBetween(ctx, db, span.From.At, span.To.At, readmodel.ChangeFilter{Table: *table, ID: *id})
	if err != nil {
		return err
	}
	return changes.Print(env.stdout, *format, span, list)
}

// openToRead opens the store's read model for a command that only
// reads, locked down as query's (readonly.LockDown).
func openToRead(ctx context.Context, env *cliEnv, sf *storeFlags) (*sql.DB, error) {
	cfg, err := sf.load(env)
	if err != nil {
		return nil, err
	}
	if err := sf.requireStore(cfg); err != nil {
		return nil, err
	}
	db, err := openRead(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := readonly.LockDown(ctx, db, cfg.Out); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// knownTable is a usage error naming the tables when table is none of
// the store's.
func knownTable(ctx context.Context, db *sql.DB, table string) error {
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_views() WHERE view_name = ? AND NOT internal", table+"_history").Scan(&n)
	if err != nil || n > 0 {
		return err
	}
	return usage.Errorf("--table %q is not a table of the store (customers, invoices, invoice_lines, subscription_charges, …: billsnap query --tables lists them)", termsafe.FirstLine(table))
}
