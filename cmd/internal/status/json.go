package status

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/snip"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// Schema is the version of status --format json's schema
// (docs/operations.md, "status --format json"): a key is never renamed
// or removed within a version.
const Schema = 1

// Doc is what status --format json prints. Every key is always
// there; what does not apply is null.
type Doc struct {
	Schema         int        `json:"schema"`
	Store          string     `json:"store"`
	Runs           []Run      `json:"runs"` // newest first
	Schedules      []Schedule `json:"schedules"`
	LatestSnapshot *Snapshot  `json:"latest_snapshot"` // the latest complete snapshot; null when none
	StoreError     *string    `json:"store_error"`     // why the snapshot database cannot be read now
	Notifications  []Target   `json:"notifications"`
	Verified       *Verified  `json:"verified"` // status --verify's; null without it
}

// Run is one run of the journal.
type Run struct {
	ID       string     `json:"id"`
	Job      string     `json:"job"`
	Schedule *string    `json:"schedule"` // null for a one-shot command
	Period   *string    `json:"period"`
	Started  time.Time  `json:"started"`
	Finished *time.Time `json:"finished"` // null while running
	Seconds  float64    `json:"seconds"`
	Outcome  string     `json:"outcome"`   // running, ok, material, failed, refused, interrupted, killed
	ExitCode *int       `json:"exit_code"` // null while running
	Error    *string    `json:"error"`
	Snapshot *string    `json:"snapshot"`
	Findings *int       `json:"findings"` // open findings of the reconciliation it made; null when it made none
	Material bool       `json:"material"` // it found something material (exit 3)
}

// Schedule is a schedule of the configuration and its next fire.
type Schedule struct {
	Name   string    `json:"name"`
	Spec   string    `json:"spec"`
	Job    string    `json:"job"`
	Period *string   `json:"period"`
	Next   time.Time `json:"next"`
}

// Snapshot is the latest complete snapshot and what its fields
// received otherwise than their columns' types.
type Snapshot struct {
	ID     string `json:"id"`
	Fields struct {
		Coerced int64 `json:"coerced"`
		Untyped int64 `json:"untyped"`
		New     int   `json:"new"`
		Absent  int   `json:"absent"`
	} `json:"fields"`
}

// Target is a notification target's last delivery.
type Target struct {
	Target       string     `json:"target"`
	Last         time.Time  `json:"last"`
	Event        string     `json:"event"`
	Result       string     `json:"result"`
	FailingSince *time.Time `json:"failing_since"` // null when its last delivery was sent
	Error        *string    `json:"error"`
}

// PrintJSON writes status as one JSON document (Doc), with verified
// (Verify's, or nil).
func PrintJSON(ctx context.Context, w io.Writer, cfg config.Config, n int, now time.Time, verified *Verified) error {
	doc := Doc{Schema: Schema, Store: cfg.Out, Runs: []Run{}, Schedules: []Schedule{}, Notifications: []Target{}, Verified: verified}
	runs, err := journal.Newest(layout.Dir(cfg.Out).Runs(), n, now)
	if err != nil {
		return err
	}
	for _, r := range runs {
		doc.Runs = append(doc.Runs, jsonRun(r))
	}
	next, err := schedule.NextFires(cfg.Schedules, now)
	if err != nil {
		return usage.Wrap(err)
	}
	for _, s := range next {
		doc.Schedules = append(doc.Schedules, Schedule{Name: s.Name, Spec: s.Spec, Job: s.Job, Period: orNull(s.Period), Next: s.At.UTC()})
	}
	targets, err := lastDeliveries(cfg.Out)
	if err != nil {
		return err
	}
	for _, t := range targets {
		doc.Notifications = append(doc.Notifications, Target{Target: t.last.Target, Last: t.last.Time.UTC(), Event: t.last.Event,
			Result: t.last.Result, FailingSince: t.failingSince, Error: orNull(snip.JSON(t.last.Error, journal.ErrorLen))})
	}
	doc.LatestSnapshot, doc.StoreError = latestSnapshot(ctx, cfg)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// jsonRun is r as status --format json gives it.
func jsonRun(r journal.Run) Run {
	out := Run{ID: r.ID, Job: r.Job, Schedule: orNull(r.Schedule), Period: orNull(r.Period), Started: r.Started.UTC(),
		Seconds: r.Seconds(), Outcome: r.Status, Error: orNull(snip.JSON(r.Error, journal.ErrorLen)), Snapshot: orNull(r.Snapshot), Findings: r.Findings,
		Material: r.Status == journal.Material}
	if r.Status != journal.Running {
		end, code := r.Finished.UTC(), r.ExitCode
		out.Finished, out.ExitCode = &end, &code
	}
	return out
}

// latestSnapshot is the latest complete snapshot of cfg's store, or why
// the store cannot be read now; neither when there is no snapshot yet.
func latestSnapshot(ctx context.Context, cfg config.Config) (*Snapshot, *string) {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	switch {
	case errors.Is(err, snapshot.ErrNoStore):
		return nil, nil
	case err != nil:
		return nil, orNull("the snapshot database cannot be read now: " + err.Error())
	}
	defer db.Close()
	id, notes, err := readmodel.LatestNotes(ctx, db)
	if err != nil {
		return nil, orNull("the snapshot database cannot be read now: " + err.Error())
	}
	if id == "" {
		return nil, nil
	}
	s := &Snapshot{ID: id}
	s.Fields.Coerced, s.Fields.Untyped, s.Fields.New, s.Fields.Absent = notes.Coerced(), notes.Untyped(), len(notes.New), len(notes.Absent)
	return s, nil
}

// orNull is s, or nil when s is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
