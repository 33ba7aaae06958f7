package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
)

// runStatus prints the last runs and when each schedule fires next. It
// only reads, and needs no lock; while a run holds the database it says so.
func runStatus(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "status", "[--out DIR] [--config FILE] [--runs N]")
	cf := addConfigFlags(fs)
	n := fs.Int("runs", 10, "how many of the last runs to show")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := cf.load(env, false)
	if err != nil {
		return err
	}
	if err := printRuns(ctx, env.stdout, cfg, *n); err != nil {
		return err
	}
	return printNextFires(env.stdout, cfg.Schedules, time.Now())
}

func printRuns(ctx context.Context, w io.Writer, cfg config.Config, n int) error {
	path := filepath.Join(cfg.Out, cfg.DuckDB.File)
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(w, "No runs yet: %s does not exist.\n", path)
		return nil
	}
	db, err := sql.Open("duckdb", path+"?"+url.Values{"access_mode": {"READ_ONLY"}}.Encode())
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		holder, _ := os.ReadFile(filepath.Join(cfg.Out, "billsnap.lock"))
		fmt.Fprintf(w, "A run holds the database now (%s); its runs show when it is done.\n", strings.TrimSpace(string(holder)))
		return nil
	}
	defer db.Close()
	runs, err := schedule.LastRuns(ctx, db, n)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Last runs in %s:\n", cfg.Out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  started (UTC)\tjob\tschedule\tperiod\tstatus\texit\tseconds\tsnapshot\terror")
	for _, r := range runs {
		secs := "-"
		if !r.Finished.IsZero() {
			secs = fmt.Sprintf("%.1f", r.Finished.Sub(r.Started).Seconds())
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Started.UTC().Format("2006-01-02 15:04:05"), r.Job, dash(r.Schedule),
			dash(r.Period), r.Status, r.ExitCode, secs, dash(r.Snapshot), firstLine(r.Error))
	}
	tw.Flush()
	if len(runs) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	return printLatestFields(ctx, w, db)
}

// statusFieldLines is how many fields status lists before it points to
// the snapshot_fields table.
const statusFieldLines = 10

// printLatestFields says what the latest complete snapshot received
// otherwise than its columns' types, and what never arrived.
func printLatestFields(ctx context.Context, w io.Writer, db *sql.DB) error {
	var id string
	err := db.QueryRowContext(ctx, `SELECT id FROM latest_snapshot
		WHERE EXISTS (SELECT 1 FROM information_schema.tables WHERE table_name = 'snapshot_fields')`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // no snapshot yet, or a store no billsnap that counts fields has written
	}
	if err != nil {
		return err
	}
	fields, err := snapshot.Fields(ctx, db, id)
	if err != nil {
		return err
	}
	tables, err := snapshot.Manifest(ctx, db, id)
	if err != nil {
		return err
	}
	n := snapshot.Notes(fields, tables)
	fmt.Fprintf(w, "\nLatest snapshot %s: fields: %d values coerced, %d untyped (NULL in their column, kept in _raw); %d new, %d absent\n",
		id, n.Coerced(), n.Untyped(), len(n.New), len(n.Absent))
	lines := append(append(slices.Clone(n.Drifted), n.Absent...), n.New...)
	for i, f := range lines {
		if i == statusFieldLines {
			fmt.Fprintf(w, "  … %d more: billsnap query \"SELECT * FROM snapshot_fields WHERE snapshot_id = '%s'\"\n", len(lines)-i, id)
			break
		}
		fmt.Fprintf(w, "  %s: %s\n", f.Name(), f.Summary())
	}
	return nil
}

func printNextFires(w io.Writer, specs []config.Schedule, now time.Time) error {
	if len(specs) == 0 {
		fmt.Fprintln(w, "\nNo schedules in the configuration.")
		return nil
	}
	next, err := schedule.NextFires(specs, now)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintln(w, "\nSchedules:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  name\tspec\tjob\tperiod\tnext (UTC)")
	for _, n := range next {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", n.Name, n.Spec, n.Job, dash(n.Period), n.At.UTC().Format("2006-01-02 15:04:05"))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
