package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/worklist"
)

// twoUsers is the workspace's users of the assignment tests, by token:
// erin may waive (so assign), dana may only sign off.
var twoUsers = map[string]string{"erin": "erin-token-0123456789", "dana": "dana-token-0123456789"}

// serveTwoUsers serves fx with identity tokens for twoUsers.
func serveTwoUsers(t *testing.T, fx *fixture) *httptest.Server {
	t.Helper()
	var file strings.Builder
	for name, tok := range twoUsers {
		sum := sha256.Sum256([]byte(tok))
		file.WriteString(name + ": " + hex.EncodeToString(sum[:]) + "\n")
	}
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte(file.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return fx.serveWith(t, func(o *Options) {
		o.Access = control(t, access.Config{Identity: access.Tokens, TokensFile: path,
			Roles: access.Roles{Waive: []string{"erin"}, SignOff: []string{"dana"}}})
	})
}

// asUser is a request by user (a bearer token of twoUsers).
func asUser(user string, c call) call {
	c.header = map[string]string{"Authorization": "Bearer " + twoUsers[user]}
	if c.body != "" {
		c.contentType = "application/json"
	}
	return c
}

// apiFindingOut is what a test reads of /api/findings.
type apiFindingOut struct {
	Rule, Severity, Status string
	Amount, Currency       string
	EntityID               string  `json:"entity_id"`
	FirstSeen              string  `json:"first_seen"`
	Assignee               *string `json:"assignee"`
	Due                    *string `json:"due"`
	AgeDays                *int    `json:"age_days"`
	Overdue                *bool   `json:"overdue"`
	Comments               *int    `json:"comments"`
	ResolutionCode         *string `json:"resolution_code"`
}

// findingsOf gets /api/findings with query q as user.
func findingsOf(t *testing.T, srv *httptest.Server, user, q string) []apiFindingOut {
	t.Helper()
	a := do(t, srv, asUser(user, call{path: "/api/findings?" + q}))
	var out []apiFindingOut
	if a.status != http.StatusOK || json.Unmarshal([]byte(a.body), &out) != nil {
		t.Fatalf("GET /api/findings?%s: %d %s", q, a.status, a.body)
	}
	return out
}

// openOf is an open finding of fx's reconciliation.
func openOf(t *testing.T, fx *fixture) findings.Finding {
	t.Helper()
	open := fx.reconciled.Open()
	if len(open) == 0 {
		t.Fatal("the fixture has no open finding")
	}
	return open[0]
}

// One finding is assigned to a user of the workspace by one who may
// assign, due by the policy for its severity; reassigning replaces it;
// /api/findings carries the work and filters by assignee; the ledger
// records each as an attributed, chained entry, and a restarted
// workspace reads them back.
func TestAFindingIsAssignedAndReassigned(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := openOf(t, fx)
	body := func(assignee, due string) string {
		b, _ := json.Marshal(map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "assignee": assignee, "due": due})
		return string(b)
	}
	if a := do(t, srv, asUser("dana", call{method: http.MethodPost, path: "/api/assignments", body: body("dana", "")})); a.status != http.StatusForbidden {
		t.Fatalf("dana, who may not waive, assigns: %d %s", a.status, a.body)
	}
	a := do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/assignments", body: body("dana", "")}))
	var got assignOut
	if a.status != http.StatusCreated || json.Unmarshal([]byte(a.body), &got) != nil {
		t.Fatalf("erin assigns to dana: %d %s", a.status, a.body)
	}
	if want := worklist.Default().DueDate(f.Severity, time.Now()); got.Assignee != "dana" || got.Due != want || got.By != "erin" {
		t.Fatalf("the assignment %+v; want dana, due %s by the policy for %s, by erin", got, want, f.Severity)
	}
	queue := findingsOf(t, srv, "dana", "assignee=me")
	if len(queue) != 1 || queue[0].EntityID != f.EntityID || *queue[0].Assignee != "dana" || *queue[0].Due != got.Due ||
		queue[0].AgeDays == nil || *queue[0].AgeDays != 0 || queue[0].Overdue == nil || *queue[0].Overdue {
		t.Fatalf("dana's queue: %+v", queue)
	}
	if named := findingsOf(t, srv, "erin", "assignee=dana"); len(named) != 1 {
		t.Fatalf("?assignee=dana: %d findings", len(named))
	}
	all := findingsOf(t, srv, "erin", "")
	unassigned := 0
	for _, x := range all {
		if x.Assignee == nil && x.Due == nil && x.AgeDays != nil && x.Overdue != nil {
			unassigned++
		}
	}
	if unassigned != len(all)-1 {
		t.Fatalf("%d of %d findings read as unassigned with an age, want all but one", unassigned, len(all))
	}

	due := time.Now().UTC().AddDate(0, 0, 3).Format(time.DateOnly)
	if a := do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/assignments", body: body("erin", due)})); a.status != http.StatusCreated {
		t.Fatalf("reassign: %d %s", a.status, a.body)
	}
	if q := findingsOf(t, srv, "erin", "assignee=dana"); len(q) != 0 {
		t.Fatalf("dana's queue after the reassignment: %+v", q)
	}
	entries := ledgerEntries(t, fx)
	if len(entries) != 2 || entries[1].Action != ledger.ActAssign || entries[1].By != "erin" || entries[1].Auth != access.Tokens ||
		entries[1].Assign[0].Assignee != "erin" || entries[1].Assign[0].Due != due {
		t.Fatalf("the ledger: %+v", entries)
	}
	if _, err := ledgerOf(fx).Verify(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	again := serveTwoUsers(t, fx)
	if q := findingsOf(t, again, "erin", "assignee=erin"); len(q) != 1 || *q[0].Due != due {
		t.Fatalf("after a restart, erin's queue: %+v", q)
	}
}

// An assignment naming an unknown user, rule or record is 422 in one
// line; a due date in the past or not a date is 400; none writes.
func TestABadAssignmentIsRefused(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := openOf(t, fx)
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	for _, c := range []struct {
		body   map[string]string
		status int
		says   string
	}{
		{map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "assignee": "frank"}, 422, `"frank" is not a user`},
		{map[string]string{"rule": "no_such_rule", "entity_id": f.EntityID, "assignee": "dana"}, 422, `no rule "no_such_rule"`},
		{map[string]string{"rule": f.Rule, "entity_id": "no-such-record", "assignee": "dana"}, 422, `names record "no-such-record"`},
		{map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "assignee": "dana", "due": yesterday}, 400, "in the past"},
		{map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "assignee": "dana", "due": "next week"}, 400, "want a date as YYYY-MM-DD"},
		{map[string]string{"entity_id": f.EntityID, "assignee": "dana"}, 400, "rule and entity_id required"},
	} {
		b, _ := json.Marshal(c.body)
		a := do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/assignments", body: string(b)}))
		var e struct{ Error string }
		json.Unmarshal([]byte(a.body), &e)
		if a.status != c.status || !strings.Contains(e.Error, c.says) || strings.Contains(e.Error, "\n") {
			t.Errorf("%s: %d %s; want %d saying %q", b, a.status, a.body, c.status, c.says)
		}
	}
	if e := ledgerEntries(t, fx); len(e) != 0 {
		t.Fatalf("refused assignments wrote %d entries", len(e))
	}
}

// A filter assigns every finding of the latest reconciliation it keeps
// (201 with how many), one matching nothing is 201 with 0, and a ledger
// that does not verify refuses either with 409.
func TestAFilterAssignsWhatItKeeps(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	rule := openOf(t, fx).Rule
	want := len(findingsOf(t, srv, "erin", "rule="+rule+"&status=open"))
	post := func(filter string) answer {
		return do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/assignments",
			body: `{"filter": ` + filter + `, "assignee": "dana"}`}))
	}
	a := post(`{"rule": "` + rule + `", "status": "open"}`)
	if a.status != http.StatusCreated || !strings.Contains(a.body, `"assigned": `+itoa(want)) {
		t.Fatalf("assign rule %s's %d open findings: %d %s", rule, want, a.status, a.body)
	}
	if q := findingsOf(t, srv, "dana", "assignee=me"); len(q) != want {
		t.Fatalf("dana's queue: %d findings, want %d", len(q), want)
	}
	if a := post(`{"q": "nothing-is-called-this"}`); a.status != http.StatusCreated || !strings.Contains(a.body, `"assigned": 0`) {
		t.Fatalf("a filter matching nothing: %d %s", a.status, a.body)
	}
	if a := post(`{"status": "closed"}`); a.status != http.StatusBadRequest {
		t.Fatalf("a bad filter: %d %s", a.status, a.body)
	}
	path := ledgerOf(fx).Path()
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"assignee":"dana"`), []byte(`"assignee":"erin"`), 1), 0o644)
	for _, filter := range []string{`{"rule": "` + rule + `"}`, `{"q": "nothing-is-called-this"}`} {
		if a := post(filter); a.status != http.StatusConflict || !strings.Contains(a.body, "billsnap ledger verify") {
			t.Fatalf("%s on a ledger that does not verify: %d %s", filter, a.status, a.body)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// reconcileAsOf reconciles fx's latest snapshot as of at, as billsnap
// reconcile --as-of does.
func (fx *fixture) reconcileAsOf(t *testing.T, at time.Time) {
	t.Helper()
	opts, err := job.ReconcileOptions(fx.cfg, "", "")
	if err != nil {
		t.Fatal(err)
	}
	opts.AsOf = at
	_, err = job.InStore(context.Background(), fx.cfg, job.Spec{Name: "reconcile"}, quiet, func(s string) string { return s }, nil,
		func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
			rep, err := job.Reconcile(ctx, store, opts, quiet, nil)
			if err != nil {
				return job.Outcome{}, err
			}
			return job.ReconcileOutcome(rep), nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// Reconciled ten days after its snapshot, every finding is ten days old,
// one assigned due tomorrow is overdue, and /api/aging puts the open,
// unwaived findings in the 8-30 bucket with their totals per currency
// (exact, as strings); a finding waived leaves the buckets.
func TestAgesOverdueAndAging(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := assignedDueTomorrowTenDaysOn(t, fx, srv)
	all := findingsOf(t, srv, "erin", "")
	for _, x := range all {
		if *x.AgeDays != 10 || *x.Overdue != (x.EntityID == f.EntityID && x.Rule == f.Rule) {
			t.Fatalf("as of ten days on: %s %s age %d overdue %v", x.Rule, x.EntityID, *x.AgeDays, *x.Overdue)
		}
	}
	var aging struct {
		Buckets []agingBucket
	}
	getAging := func() {
		a := do(t, srv, asUser("dana", call{path: "/api/aging"}))
		aging.Buckets = nil
		if a.status != http.StatusOK || json.Unmarshal([]byte(a.body), &aging) != nil {
			t.Fatalf("/api/aging: %d %s", a.status, a.body)
		}
	}
	getAging()
	open := findingsOf(t, srv, "erin", "status=open&waived=no")
	if len(aging.Buckets) != 4 || aging.Buckets[2].Bucket != "8-30" || aging.Buckets[2].Count != len(open) ||
		aging.Buckets[0].Count+aging.Buckets[1].Count+aging.Buckets[3].Count != 0 {
		t.Fatalf("aging %+v; want the %d open unwaived findings 8-30", aging.Buckets, len(open))
	}
	want := map[string]ledger.Total{}
	sums := map[string][2]money.Amount{}
	for _, x := range open {
		a, err := money.Parse(x.Amount)
		if err != nil || x.Currency == "" {
			continue
		}
		t := sums[x.Currency]
		sums[x.Currency] = [2]money.Amount{t[0] + a, t[1] + a.Abs()}
	}
	for c, t := range sums {
		want[c] = ledger.Total{Net: t[0].String(), Gross: t[1].String()}
	}
	if !reflect.DeepEqual(aging.Buckets[2].Totals, want) {
		t.Errorf("8-30's totals %+v, want %+v", aging.Buckets[2].Totals, want)
	}
	wv, _ := json.Marshal(map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "reason": "r", "owner": "erin", "expires": "2099-12-31"})
	if a := do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/waivers", body: string(wv)})); a.status != http.StatusCreated {
		t.Fatalf("waive: %d %s", a.status, a.body)
	}
	getAging()
	if aging.Buckets[2].Count != len(open)-1 {
		t.Fatalf("after a waiver, 8-30 holds %d, want %d", aging.Buckets[2].Count, len(open)-1)
	}
}

// formAs posts form values to path as user, with the CSRF token of the
// user's findings page.
func formAs(t *testing.T, srv *httptest.Server, user, path string, v url.Values) answer {
	t.Helper()
	m := csrfRE.FindStringSubmatch(do(t, srv, asUser(user, call{path: "/findings"})).body)
	if m == nil {
		t.Fatal("the findings page carries no CSRF token")
	}
	v.Set("csrf", m[1])
	c := asUser(user, call{method: http.MethodPost, path: path, body: v.Encode()})
	c.contentType = "application/x-www-form-urlencoded"
	return do(t, srv, c)
}

// The pages assign as the API does: the findings list links each finding
// to the assign form and offers to assign all it shows, the record page
// links its findings, the form's post records the assignment, a user with
// a queue lands on it, and the audit log shows it.
func TestThePagesAssign(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := openOf(t, fx)
	list := do(t, srv, asUser("erin", call{path: "/findings"}))
	if list.status != http.StatusOK || !strings.Contains(list.body, `id="assign-all"`) || !strings.Contains(list.body, `href="/assign?`) {
		t.Fatalf("the findings page: %d, no assign form or link", list.status)
	}
	rec := do(t, srv, asUser("erin", call{path: "/entities/" + f.Entity + "/" + f.EntityID}))
	if !strings.Contains(rec.body, `class="button assign" href="/assign?`) {
		t.Fatalf("the record page links no assign form: %d", rec.status)
	}
	form := do(t, srv, asUser("erin", call{path: "/assign?" + url.Values{"rule": {f.Rule}, "entity_id": {f.EntityID}, "back": {"/findings"}}.Encode()}))
	if form.status != http.StatusOK || !strings.Contains(form.body, `id="assign-form"`) || !strings.Contains(form.body, "Assigning as <strong>erin</strong>") {
		t.Fatalf("the assign form: %d", form.status)
	}
	if a := formAs(t, srv, "erin", "/assignments", url.Values{"rule": {f.Rule}, "entity_id": {f.EntityID}, "assignee": {"frank"}}); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "is not a user") {
		t.Fatalf("assigned to frank: %d", a.status)
	}
	a := formAs(t, srv, "erin", "/assignments", url.Values{"rule": {f.Rule}, "entity_id": {f.EntityID}, "assignee": {"dana"}, "back": {"/findings"}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/findings" {
		t.Fatalf("the form's post: %d %s", a.status, a.header.Get("Location"))
	}
	if a := do(t, srv, asUser("dana", call{path: "/findings"})); a.status != http.StatusSeeOther || a.header.Get("Location") != "/findings?assignee=me" {
		t.Fatalf("dana's findings page: %d %q, want her queue", a.status, a.header.Get("Location"))
	}
	if a := do(t, srv, asUser("erin", call{path: "/findings"})); a.status != http.StatusOK {
		t.Fatalf("erin, with no queue, gets the list: %d", a.status)
	}
	queue := do(t, srv, asUser("dana", call{path: "/findings?assignee=me"}))
	if !strings.Contains(queue.body, `id="queue"`) || !strings.Contains(queue.body, f.EntityID) || !strings.Contains(queue.body, `<span class="assignee">dana</span>`) ||
		!strings.Contains(queue.body, "1 finding") {
		t.Fatalf("dana's queue page:\n%s", queue.body)
	}
	all := formAs(t, srv, "erin", "/assignments", url.Values{"filter": {"1"}, "rule": {f.Rule}, "status": {"open"}, "assignee": {"dana"}, "back": {"/findings"}})
	want := len(findingsOf(t, srv, "erin", "rule="+f.Rule+"&status=open"))
	if q := findingsOf(t, srv, "dana", "assignee=me"); all.status != http.StatusSeeOther || len(q) != want {
		t.Fatalf("assign all shown: %d, dana's queue %d, want %d", all.status, len(q), want)
	}
	if audit := do(t, srv, asUser("erin", call{path: "/audit"})); !strings.Contains(audit.body, "assigned "+f.Rule+" "+f.EntityID+" to dana") {
		t.Fatal("the audit log does not show the assignment")
	}
}

// assignedDueTomorrowTenDaysOn assigns an open finding of fx to dana, due
// tomorrow (as erin), then reconciles fx again ten days on, so that the
// finding is ten days old and overdue; it gives the finding.
func assignedDueTomorrowTenDaysOn(t *testing.T, fx *fixture, srv *httptest.Server) findings.Finding {
	t.Helper()
	f := openOf(t, fx)
	due := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	b, _ := json.Marshal(map[string]string{"rule": f.Rule, "entity_id": f.EntityID, "assignee": "dana", "due": due})
	if a := do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/assignments", body: string(b)})); a.status != http.StatusCreated {
		t.Fatalf("assign: %d %s", a.status, a.body)
	}
	fx.reconcileAsOf(t, time.Now().Add(10*24*time.Hour+time.Hour))
	return f
}
