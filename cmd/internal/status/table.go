// Package status prints what billsnap status shows of a store: its last
// runs (from the journal, which no lock holds), each notification
// target's last delivery, what the latest complete snapshot received of
// its fields, and when each schedule fires next. It only reads.
//
// [PrintTable] prints tables for people. [PrintJSON] prints one JSON
// document ([Doc] and the types it holds), whose schema is versioned by
// [Schema] and given in docs/operations.md; cmd/billsnap's TestStatusJSON
// holds its keys to a golden file.
package status

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// PrintTable writes the status of cfg's store for people: the last n
// runs, newest first, the notification targets' last deliveries, the
// latest snapshot's fields and the schedules' next fires after now.
func PrintTable(ctx context.Context, w io.Writer, cfg config.Config, n int, now time.Time) error {
	if err := printRuns(ctx, w, cfg, n, now); err != nil {
		return err
	}
	if err := printDeliveries(w, cfg.Out); err != nil {
		return err
	}
	return printNextFires(w, cfg.Schedules, now)
}

// targetDelivery is a notification target's last delivery, and since
// when it has been failing (nil when its last was sent).
type targetDelivery struct {
	last         journal.Delivery
	failingSince *time.Time
}

// lastDeliveries is each notification target's last delivery, in the
// order the targets were first delivered to.
func lastDeliveries(out string) ([]targetDelivery, error) {
	ds, err := journal.DeliveriesIn(layout.Dir(out).Notifications()).List()
	if err != nil {
		return nil, err
	}
	last, failingSince := map[string]journal.Delivery{}, map[string]time.Time{}
	var names []string
	for _, d := range ds {
		if d.Result == journal.DeliveryNoted || d.Result == journal.DeliveryPruned {
			continue
		}
		if _, ok := last[d.Target]; !ok {
			names = append(names, d.Target)
		}
		last[d.Target] = d
		if d.Result == journal.DeliverySent {
			delete(failingSince, d.Target)
		} else if _, ok := failingSince[d.Target]; !ok {
			failingSince[d.Target] = d.Time
		}
	}
	targets := make([]targetDelivery, 0, len(names))
	for _, name := range names {
		t := targetDelivery{last: last[name]}
		if since, ok := failingSince[name]; ok {
			since = since.UTC()
			t.failingSince = &since
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// printDeliveries shows each notification target's last delivery, and
// since when it has been failing.
func printDeliveries(w io.Writer, out string) error {
	targets, err := lastDeliveries(out)
	if err != nil || len(targets) == 0 {
		return err
	}
	fmt.Fprintln(w, "\nNotifications:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  target\tlast (UTC)\tevent\tresult\tfailing since\terror")
	for _, t := range targets {
		d, since := t.last, "-"
		if t.failingSince != nil {
			since = t.failingSince.Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", d.Target, d.Time.UTC().Format("2006-01-02 15:04:05"), d.Event, d.Result, since, dash(termsafe.FirstLine(d.Error)))
	}
	return tw.Flush()
}

// printRuns writes the last n runs and the latest snapshot's fields.
func printRuns(ctx context.Context, w io.Writer, cfg config.Config, n int, now time.Time) error {
	runs, err := journal.Newest(layout.Dir(cfg.Out).Runs(), n, now)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		fmt.Fprintf(w, "No runs yet in %s.\n", cfg.Out)
	} else {
		printRunTable(w, cfg.Out, runs)
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	switch {
	case errors.Is(err, snapshot.ErrNoStore):
		return nil
	case err != nil:
		fmt.Fprintf(w, "\nThe snapshot database cannot be read now: %v\n", err)
		return nil
	}
	defer db.Close()
	return printLatestFields(ctx, w, db)
}

// printRunTable writes the runs, newest first: each with the open
// findings of the reconciliation it made ("-" when it made none, as a
// failed export or a report), and its error on one line with its hint.
func printRunTable(w io.Writer, out string, runs []journal.Run) {
	fmt.Fprintf(w, "Last runs in %s:\n", out)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  started (UTC)\tjob\tschedule\tperiod\tstatus\texit\tseconds\tsnapshot\tfindings\terror")
	for _, r := range runs {
		exit := strconv.Itoa(r.ExitCode)
		if r.Status == journal.Running {
			exit = "-"
		}
		findings := "-"
		if r.Findings != nil {
			findings = strconv.Itoa(*r.Findings)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\n", r.Started.UTC().Format("2006-01-02 15:04:05"), r.Job, dash(r.Schedule),
			dash(r.Period), r.Status, exit, r.Seconds(), dash(r.Snapshot), findings, termsafe.Brief(r.Error))
	}
	tw.Flush()
}

// statusFieldLines is how many fields status lists before it points to
// the snapshot_fields table.
const statusFieldLines = 10

// printLatestFields says what the latest complete snapshot received
// otherwise than its columns' types, and what never arrived.
func printLatestFields(ctx context.Context, w io.Writer, db *sql.DB) error {
	id, n, err := readmodel.LatestNotes(ctx, db)
	if err != nil || id == "" {
		return err
	}
	fmt.Fprintf(w, "\nLatest snapshot %s: fields: %s coerced, %d untyped (NULL in their column, kept in _raw); %d new, %d absent\n",
		id, plural.Of(n.Coerced(), "value"), n.Untyped(), len(n.New), len(n.Absent))
	lines := append(append(slices.Clone(n.Drifted), n.Absent...), n.New...)
	for i, f := range lines {
		if i == statusFieldLines {
			fmt.Fprintf(w, "  … %d more: billsnap query \"SELECT * FROM snapshot_fields WHERE snapshot_id = '%s'\"\n", len(lines)-i, id)
			break
		}
		fmt.Fprintf(w, "  %s: %s\n", termsafe.String(f.Name()), termsafe.String(f.Summary())) // field names come from the service
	}
	return nil
}

func printNextFires(w io.Writer, specs []schedule.Schedule, now time.Time) error {
	if len(specs) == 0 {
		fmt.Fprintln(w, "\nNo schedules in the configuration.")
		return nil
	}
	next, err := schedule.NextFires(specs, now)
	if err != nil {
		return usage.Wrap(err)
	}
	fmt.Fprintln(w, "\nSchedules:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  name\tspec\tjob\tperiod\tnext (UTC)")
	for _, n := range next {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", n.Name, n.Spec, n.Job, dash(n.Period), n.At.UTC().Format("2006-01-02 15:04:05"))
	}
	return tw.Flush()
}

// dash is s, or "-" when s is empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
