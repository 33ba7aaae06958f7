// Package notify tells people when money is at risk or a job fails: it
// sends the events of a store's runs (material findings new since the last
// notification, failures, a store gone stale, material findings resolved)
// to webhooks (json, Slack, Teams) and by email (SMTP over TLS), each
// event once per target. What was sent, and when, is recorded in the
// store (journal.Deliveries), which is how nothing is sent twice. A
// delivery is tried a bounded number of times and never changes a job's
// outcome.
package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
)

// Where is what a Notifier needs of its store and process.
type Where struct {
	Out        string // the store
	ReportsDir string // the reports' directory (a snapshot's are in <dir>/<snapshot id>)
	Log        *slog.Logger
	Now        func() time.Time
	Getenv     func(string) string
	// LastComplete is the newest complete snapshot and when it finished
	// ("" when there is none), for the stale event.
	LastComplete func(ctx context.Context) (string, time.Time, error)
	// Redact takes secrets out of what is logged and recorded.
	Redact func(string) string
}

// Notifier sends the events of a store's runs to the targets of Options.
type Notifier struct {
	o       Options
	w       Where
	targets []target
	record  journal.Deliveries
	// Sleep waits between the tries of a delivery; tests make it instant.
	Sleep func(ctx context.Context, d time.Duration) error
}

// New is the notifier of o for the store w.Out; nil when o has no target.
func New(o Options, w Where) *Notifier {
	if !o.Targets() {
		return nil
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	n := &Notifier{o: o, w: w, record: journal.DeliveriesIn(layout.Dir(w.Out).Notifications()), Sleep: sleep}
	for i, h := range o.Webhooks {
		n.targets = append(n.targets, webhookTarget(h, i, client))
	}
	if o.Email != nil {
		n.targets = append(n.targets, emailTarget(*o.Email, w.Getenv, w.Now))
	}
	return n
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// AfterRun sends what the end of run calls for: a failure (run's, and
// those of runs found killed), the material findings of rep new to each
// target and those resolved since, the assigned findings of rep overdue
// that a target was not told of (rep nil: the run reconciled nothing),
// and a store gone stale. Problems are logged, never returned.
func (n *Notifier) AfterRun(ctx context.Context, run journal.Run, rep *findings.Report) {
	if n == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	n.retry(ctx)
	if run.ExitCode == 1 {
		n.failure(ctx, run)
	}
	n.killed(ctx)
	if rep != nil {
		n.findings(ctx, run, rep)
		n.overdue(ctx, run, rep)
	}
	n.CheckStale(ctx)
}

// retry sends again the failures and stale events of the last day whose
// delivery failed and has not succeeded since. (Material findings not
// delivered are still new to their target: the next reconciliation sends
// them.)
func (n *Notifier) retry(ctx context.Context) {
	past, err := n.record.List()
	if err != nil {
		return
	}
	tried := map[[3]string]bool{}
	for _, d := range past {
		id := [3]string{d.Target, d.Event, d.Key}
		if d.Result != journal.DeliveryFailed || (d.Event != Failure && d.Event != Stale) ||
			n.w.Now().Sub(d.Time) > 24*time.Hour || sent(past, d.Target, d.Event, d.Key) || tried[id] {
			continue
		}
		tried[id] = true
		var m Message
		if json.Unmarshal(d.Message, &m) != nil {
			continue
		}
		for _, t := range n.targets {
			if t.name == d.Target {
				n.deliver(ctx, t, m, d.Key, nil)
			}
		}
	}
}

// failure sends the failure of run.
func (n *Notifier) failure(ctx context.Context, run journal.Run) {
	m := Message{Event: Failure, Job: run.Job, Schedule: run.Schedule, RunID: run.ID, SnapshotID: run.Snapshot,
		Period: run.Period, ExitCode: run.ExitCode, Error: run.Error,
		Summary: fmt.Sprintf("billsnap: the %s job %s (exit %d)", run.Job, run.Status, run.ExitCode)}
	n.emit(ctx, m, run.ID, nil)
}

// killed sends the failure of each run killed in the last day that no
// target was told of.
func (n *Notifier) killed(ctx context.Context) {
	runs, err := journal.List(layout.Dir(n.w.Out).Runs(), n.w.Now())
	if err != nil {
		n.w.Log.Warn("notifications: reading the runs", "error", err)
		return
	}
	for _, r := range runs {
		if r.Status == journal.Killed && n.w.Now().Sub(r.Finished) < 24*time.Hour {
			n.failure(ctx, r)
		}
	}
}

// CheckStale sends the stale event when the newest complete snapshot is
// older than stale_after (once per such snapshot).
func (n *Notifier) CheckStale(ctx context.Context) {
	if n == nil || n.o.StaleAfter == 0 || n.w.LastComplete == nil {
		return
	}
	id, at, err := n.w.LastComplete(ctx)
	if err != nil {
		n.w.Log.Debug("notifications: the newest complete snapshot", "error", err)
		return
	}
	age := n.w.Now().Sub(at)
	if id != "" && age <= time.Duration(n.o.StaleAfter) {
		return
	}
	m := Message{Event: Stale, SnapshotID: id, Summary: "billsnap: no complete snapshot yet"}
	if id != "" {
		m.Summary = fmt.Sprintf("billsnap: no complete snapshot for %s (the newest, %s, finished %s)",
			age.Round(time.Minute), id, at.UTC().Format(time.RFC3339))
	}
	n.emit(ctx, m, "stale/"+id, nil)
}

// findings sends, to each target, the material findings of rep it has not
// been told of (or was told of longer than remind ago), and the ones it
// was told of that are gone.
func (n *Notifier) findings(ctx context.Context, run journal.Run, rep *findings.Report) {
	past, err := n.record.List()
	if err != nil {
		n.w.Log.Warn("notifications: reading the record", "error", err)
		return
	}
	current := materialFindings(rep)
	for _, t := range n.targets {
		told, newest := journal.Announced(past, t.name)
		if rep.Snapshot.ID < newest {
			continue // an older snapshot reconciled again: not news
		}
		var fresh []findings.Finding
		for _, f := range current {
			at, ok := told[key(f)]
			if !ok || (n.o.Remind > 0 && n.w.Now().Sub(at) >= time.Duration(n.o.Remind)) {
				fresh = append(fresh, f)
			}
		}
		if len(fresh) > 0 && slices.Contains(t.on, Material) {
			m := materialMessage(rep, fresh)
			m.Job, m.Schedule, m.RunID, m.ExitCode = run.Job, run.Schedule, run.ID, run.ExitCode
			n.deliver(ctx, t, n.where(m), rep.Snapshot.ID, keys(fresh))
		}
		n.resolved(ctx, t, told, current, rep)
	}
}

// resolved tells t of the findings it was told of that rep no longer has
// (or only notes them, when t does not take the event).
func (n *Notifier) resolved(ctx context.Context, t target, told map[string]time.Time, current []findings.Finding, rep *findings.Report) {
	still := map[string]bool{}
	for _, f := range current {
		still[key(f)] = true
	}
	var gone []string
	for k := range told {
		if !still[k] {
			gone = append(gone, k)
		}
	}
	if len(gone) == 0 {
		return
	}
	slices.Sort(gone)
	m := Message{Event: Resolved, SnapshotID: rep.Snapshot.ID, Period: rep.Period.String(), ResolvedFindings: len(gone),
		Summary: fmt.Sprintf("billsnap: %d material findings announced before are resolved in snapshot %s", len(gone), rep.Snapshot.ID)}
	if !slices.Contains(t.on, Resolved) {
		n.add(journal.Delivery{Time: n.w.Now().UTC(), Target: t.name, Event: Resolved, Key: rep.Snapshot.ID, Findings: gone, Result: journal.DeliveryNoted})
		return
	}
	n.deliver(ctx, t, n.where(m), rep.Snapshot.ID, gone)
}

func keys(fs []findings.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = key(f)
	}
	return out
}

// where adds where the reports and the workspace are.
func (n *Notifier) where(m Message) Message {
	if m.SnapshotID != "" && n.w.ReportsDir != "" {
		if dir := filepath.Join(n.w.ReportsDir, m.SnapshotID); exists(dir) {
			m.Report = dir
		}
	}
	m.Workspace = n.o.WorkspaceURL
	return m
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// emit sends m to every target that takes its event and has not been sent
// the event of key.
func (n *Notifier) emit(ctx context.Context, m Message, key string, findings []string) {
	past, err := n.record.List()
	if err != nil {
		n.w.Log.Warn("notifications: reading the record", "error", err)
		return
	}
	m = n.where(m)
	for _, t := range n.targets {
		if !slices.Contains(t.on, m.Event) || sent(past, t.name, m.Event, key) {
			continue
		}
		n.deliver(ctx, t, m, key, findings)
	}
}

func sent(past []journal.Delivery, target, event, key string) bool {
	return slices.ContainsFunc(past, func(d journal.Delivery) bool {
		return d.Target == target && d.Event == event && d.Key == key && d.Result == journal.DeliverySent
	})
}

// deliver tries t until it takes m or the tries run out, and records the
// result.
func (n *Notifier) deliver(ctx context.Context, t target, m Message, key string, findings []string) error {
	m = m.bounded()
	m.Time = n.w.Now().UTC()
	var err error
	tries := 0
	for wait := Backoff; tries < Attempts; wait *= 2 {
		tries++
		if err = t.send(ctx, m); err == nil || isPermanent(err) {
			break
		}
		if tries < Attempts && n.Sleep(ctx, wait) != nil {
			break
		}
	}
	d := journal.Delivery{Time: n.w.Now().UTC(), Target: t.name, Event: m.Event, Key: key, Findings: findings, Result: journal.DeliverySent, Attempts: tries}
	if err != nil {
		d.Result, d.Error = journal.DeliveryFailed, n.w.Redact(err.Error())
		d.Message, _ = json.Marshal(m)
		n.w.Log.Error("notification not delivered", "target", t.name, "event", m.Event, "attempts", tries, "error", d.Error)
	} else {
		n.w.Log.Info("notification sent", "target", t.name, "event", m.Event)
	}
	n.add(d)
	return err
}

func (n *Notifier) add(d journal.Delivery) {
	if err := n.record.Add(d); err != nil {
		n.w.Log.Error("notifications: recording a delivery", "error", err)
	}
}

// Result is a target's answer to Test.
type Result struct {
	Target string
	Err    error
}

// Test sends a test message to every target, whatever events it takes,
// and says how each went.
func (n *Notifier) Test(ctx context.Context) []Result {
	host, _ := os.Hostname()
	m := Message{Event: Test, Summary: "billsnap: a test message from " + host + " (billsnap notify test)", Workspace: n.o.WorkspaceURL}
	out := make([]Result, len(n.targets))
	for i, t := range n.targets {
		out[i] = Result{Target: t.name, Err: n.deliver(ctx, t, m, n.w.Now().UTC().Format(time.RFC3339Nano), nil)}
	}
	return out
}
