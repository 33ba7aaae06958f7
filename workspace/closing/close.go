package closing

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/billsnap/billsnap/evidence"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/atomicfile"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reports"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
	"github.com/billsnap/billsnap/workspace/recon"
)

// closeFormats are the files of a closed record, besides findings.jsonl.
var closeFormats = []string{"md", "html", "xlsx", "csv", "json"}

// Closer closes the periods of a store: it freezes a signed-off
// reconciliation as a closed record (the reports' files beside the
// findings, the rules' SQL and the snapshot's manifest) and records the
// close, with each file's SHA-256, in the ledger.
type Closer struct {
	Ledger *ledger.Ledger
	Log    *slog.Logger
	Now    func() time.Time
	Store  storeconfig.Options // where the store is, and its Parquet
	Rules  []findings.Rule     // the rules in their order, whose SQL the record keeps
	// Flux is the flux review of a reconciliation's period as the
	// record's reports show it (nil for a whole snapshot's).
	Flux func(ctx context.Context, db *sql.DB, rc recon.Recon) (*reports.Flux, error)
}

// Close closes period for a: it freezes the reconciliation of the
// period's newest sign-off, when its findings are still the ones signed,
// as files of a closed record, and records the close with their SHA-256
// in the ledger. Who may close is the caller's to check.
func (c Closer) Close(ctx context.Context, db *sql.DB, a ledger.Actor, period, comment string) (ledger.Closed, error) {
	if _, err := findings.ParsePeriod(period); err != nil || period == "" {
		return ledger.Closed{}, &ledger.InvalidError{Msg: fmt.Sprintf("close: period %q: want YYYY-MM", period)}
	}
	if _, err := c.Ledger.Verify(); err != nil { // before the closed record is written
		return ledger.Closed{}, &ledger.RefusedError{Err: err}
	}
	entries, err := c.Ledger.Read()
	if err != nil {
		return ledger.Closed{}, err
	}
	st := ledger.Fold(entries)
	if cur, ok := st.ClosedPeriod(period); ok {
		return ledger.Closed{}, &ledger.ClosedError{Closed: cur}
	}
	so, ok := newestSignOff(st, period)
	if !ok {
		return ledger.Closed{}, &recon.ConflictError{Msg: fmt.Sprintf("period %s has no sign-off: sign it off before closing it", period)}
	}
	cl, dir, err := c.freeze(ctx, db, so, st)
	if err != nil {
		return ledger.Closed{}, err
	}
	cl.Comment = comment
	closed, err := c.Ledger.ClosePeriod(a, cl)
	if err != nil || len(closed.Files) == 0 || closed.Files[0].Path != cl.Files[0].Path {
		os.RemoveAll(dir) // another close of the same came first: its record stands
	}
	if err == nil {
		c.Log.Info("workspace: period closed", "id", closed.ID, "period", period, "snapshot", closed.Snapshot, "by", a.By, "from", a.From)
	}
	return closed, err
}

// Reopen reopens period for reason, by a. Who may reopen is the
// caller's to check.
func (c Closer) Reopen(a ledger.Actor, period, reason string) (ledger.Closed, error) {
	cl, err := c.Ledger.ReopenPeriod(a, period, reason)
	if err == nil {
		c.Log.Info("workspace: period reopened", "id", cl.ID, "period", period, "by", a.By, "from", a.From)
	}
	return cl, err
}

// newestSignOff is the period's newest sign-off, of any snapshot.
func newestSignOff(st ledger.State, period string) (ledger.Signed, bool) {
	for i := len(st.SignOffs) - 1; i >= 0; i-- {
		if st.SignOffs[i].Period == period {
			return st.SignOffs[i], true
		}
	}
	return ledger.Signed{}, false
}

// freeze writes the closed record of the reconciliation so signed, and
// gives the close that records it and the record's directory.
func (c Closer) freeze(ctx context.Context, db *sql.DB, so ledger.Signed, st ledger.State) (ledger.Close, string, error) {
	rc, _, err := recon.Find(ctx, db, so.Snapshot, so.Period)
	if err != nil {
		return ledger.Close{}, "", err
	}
	now, err := recon.SignOffOf(ctx, db, rc, recon.RuleIDs(c.Rules))
	if err != nil {
		return ledger.Close{}, "", err
	}
	if now.Digest != so.Digest {
		return ledger.Close{}, "", &recon.ConflictError{Msg: fmt.Sprintf("the findings of snapshot %s for %s are no longer the ones signed off in %s (a waiver or a reconciliation since): sign off again, then close",
			rc.Snapshot.ID, rc.Period, so.ID)}
	}
	cl := ledger.Close{Period: so.Period, Snapshot: so.Snapshot, SignOff: so.ID, Findings: now.Findings, Digest: now.Digest, Totals: now.Totals, Waivers: []string{}}
	for _, w := range st.Standing() {
		cl.Waivers = append(cl.Waivers, w.ID)
	}
	files, dir, err := c.writeRecord(ctx, db, rc, so, st)
	cl.Files = files
	return cl, dir, err
}

// writeRecord writes the reports of rc (with its period's flux review),
// its findings as JSON lines and the
// rules' SQL into a new directory of the closed records, and gives each
// file with its SHA-256 and its path relative to the store, and the
// directory. A directory of its own for each close asked: a second close
// sent at once never rewrites the files of the first.
func (c Closer) writeRecord(ctx context.Context, db *sql.DB, rc recon.Recon, so ledger.Signed, st ledger.State) ([]ledger.File, string, error) {
	list, _, err := recon.List(ctx, db, recon.Filter{Page: 1}, rc.Snapshot.ID, rc.Period, recon.RuleIDs(c.Rules), 0)
	if err != nil {
		return nil, "", err
	}
	wk, err := recon.WorkOf(ctx, db, c.Ledger, rc)
	if err != nil {
		return nil, "", err
	}
	wk.Coded(list)
	period, _ := findings.ParsePeriod(rc.Period)
	rep := &findings.Report{Snapshot: rc.Snapshot, Previous: rc.Previous, AsOf: rc.AsOf, Period: period, Rules: c.Rules, Findings: list}
	in := &reports.Input{Report: rep, Generated: c.Now(), MaxRows: 1_000_000, SignOffs: signOffsUpTo(st, so), Work: wk.ForReports()}
	if in.Flux, err = c.Flux(ctx, db, rc); err != nil {
		return nil, "", err
	}
	root := c.Store.Out
	parent := filepath.Join(layout.Dir(root).Closes(), rc.Period)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp(parent, so.ID+"-"+so.Digest[:12]+"-")
	if err != nil {
		return nil, "", err
	}
	files, err := writeRecordFiles(root, dir, in, c.Rules, func() ([]string, error) {
		tables, err := readmodel.Manifest(ctx, db, rc.Snapshot.ID)
		if err != nil {
			return nil, err
		}
		return evidence.SnapshotRecord(ctx, root, filepath.Join(root, c.Store.Parquet.Dir), rc.Snapshot.ID, tables, dir)
	})
	if err != nil {
		os.RemoveAll(dir)
	}
	return files, dir, err
}

// writeRecordFiles writes the files of a closed record into dir, then
// the snapshot's (its Parquet manifest and per-table figures, which the
// evidence pack ties to the close through them).
func writeRecordFiles(root, dir string, in *reports.Input, rules []findings.Rule, snapshotFiles func() ([]string, error)) ([]ledger.File, error) {
	paths, err := reports.Write(dir, in, closeFormats)
	if err != nil {
		return nil, err
	}
	lines := filepath.Join(dir, "findings.jsonl")
	if err := atomicfile.WriteFunc(lines, func(w io.Writer) error { return reports.JSONLines(w, in.Report) }); err != nil {
		return nil, err
	}
	sqls, err := writeRules(dir, rules)
	if err != nil {
		return nil, err
	}
	snap, err := snapshotFiles()
	if err != nil {
		return nil, err
	}
	var files []ledger.File
	for _, p := range append(append(append(paths, lines), sqls...), snap...) {
		sum, _, err := evidence.HashFile(p)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, ledger.File{Path: filepath.ToSlash(rel), SHA256: sum})
	}
	return files, nil
}

// writeRules writes the SQL of every rule as run into dir/rules, a file
// per rule, and gives their paths.
func writeRules(dir string, rules []findings.Rule) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "rules"), 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rules {
		p := filepath.Join(dir, "rules", r.ID+".sql")
		if err := atomicfile.WriteFunc(p, func(w io.Writer) error { _, err := io.WriteString(w, r.SQL); return err }); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// signOffsUpTo are the period's sign-offs up to so, oldest first.
func signOffsUpTo(st ledger.State, so ledger.Signed) []ledger.Signed {
	var out []ledger.Signed
	for _, x := range st.SignOffs {
		if x.Period == so.Period {
			out = append(out, x)
		}
		if x.ID == so.ID {
			break
		}
	}
	return out
}

// NewCovering is the Covering of the closed records under the store
// root.
func NewCovering(root string) *Covering {
	return &Covering{root: root, sets: map[string]map[[2]string]bool{}}
}

// Covering knows which findings each close covers, from its closed
// record's findings.jsonl, read once per close.
type Covering struct {
	root string
	mu   sync.Mutex
	sets map[string]map[[2]string]bool
}

// Covers tells whether close c's record holds the finding of rule about
// entity. A record that cannot be read covers every finding: an action
// is then marked an adjustment rather than slip past a close.
func (cv *Covering) Covers(c ledger.Closed, rule, entity string) bool {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	set, ok := cv.sets[c.ID]
	if !ok {
		set = cv.read(c)
		cv.sets[c.ID] = set
	}
	return set == nil || set[[2]string{rule, entity}]
}

func (cv *Covering) read(c ledger.Closed) map[[2]string]bool {
	i := slices.IndexFunc(c.Files, func(f ledger.File) bool { return filepath.Base(f.Path) == "findings.jsonl" })
	if i < 0 {
		return nil
	}
	f, err := os.Open(filepath.Join(cv.root, filepath.FromSlash(c.Files[i].Path)))
	if err != nil {
		return nil
	}
	defer f.Close()
	set := map[[2]string]bool{}
	dec := json.NewDecoder(f)
	for dec.More() {
		var x reports.FindingJSON
		if err := dec.Decode(&x); err != nil {
			return nil
		}
		set[[2]string{x.Rule, x.EntityID}] = true
	}
	return set
}

// View is a closed period as the overview and the API show it: the
// close, its figures, and what came after it.
type View struct {
	ledger.Closed
	Figures     []Figure       // the closed totals
	Adjustments []ledger.Entry // the ledger's post-close adjustments, oldest first
	Later       []recon.Recon  // reconciliations of the period after the close whose findings differ
	Reopens     []ledger.Entry // earlier closes of the period reopened, newest first
}

// Figure is a currency's totals at the close, as decimal text (the
// page groups them).
type Figure struct {
	Currency string
	ledger.Total
}

// State is the close that stands for period, with what came after
// it; nil when the period is open. Reopens lists the period's reopenings
// either way.
func (c Closer) State(ctx context.Context, db *sql.DB, period string) (*View, []ledger.Entry, error) {
	entries, err := c.Ledger.Read()
	if err != nil {
		return nil, nil, err
	}
	st := ledger.Fold(entries)
	var reopens []ledger.Entry
	for _, x := range slices.Backward(st.Closes) {
		if x.Period == period && x.Reopened != nil {
			reopens = append(reopens, *x.Reopened)
		}
	}
	cl, ok := st.ClosedPeriod(period)
	if !ok || period == "" {
		return nil, reopens, nil
	}
	v := &View{Closed: cl, Adjustments: ledger.Adjustments(entries, cl), Reopens: reopens}
	for _, cur := range slices.Sorted(maps.Keys(cl.Totals)) {
		v.Figures = append(v.Figures, Figure{Currency: cur, Total: cl.Totals[cur]})
	}
	v.Later, err = reconciledAfter(ctx, db, cl)
	return v, reopens, err
}

// reconciledAfter are the reconciliations of c's period stored after c
// whose open findings are not the ones closed, newest first.
func reconciledAfter(ctx context.Context, db *sql.DB, c ledger.Closed) ([]recon.Recon, error) {
	all, err := readmodel.ReconciledAfter(ctx, db, c.Period, c.At)
	if err != nil {
		return nil, err
	}
	var out []recon.Recon
	for _, stored := range all {
		rc := recon.OfStored(stored)
		d, _, err := recon.Digest(ctx, db, rc)
		if err != nil {
			return nil, err
		}
		if d != c.Digest {
			out = append(out, rc)
		}
	}
	return out, nil
}
