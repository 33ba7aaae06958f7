package workspace

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// commentBody is the JSON of a comment on the finding of rule about id.
func commentBody(rule, id, text string) string {
	b, _ := json.Marshal(map[string]string{"rule": rule, "entity_id": id, "text": text})
	return string(b)
}

// A finding's thread: erin (who may waive) and dana (who may only sign
// off) comment on it through the API (201), the comments come back in
// order, attributed, /api/findings counts them on that finding alone, the
// record page shows the thread with its form, whose post adds to it, and
// the audit log lists each; every comment is a verified ledger entry.
func TestAFindingHasAThread(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := openOf(t, fx)
	post := func(user, text string) answer {
		return do(t, srv, asUser(user, call{method: http.MethodPost, path: "/api/comments", body: commentBody(f.Rule, f.EntityID, text)}))
	}
	a := post("erin", "Asked billing ops.\nTicket OPS-42.")
	var got apiComment
	if a.status != http.StatusCreated || json.Unmarshal([]byte(a.body), &got) != nil || got.By != "erin" || got.Text != "Asked billing ops.\nTicket OPS-42." || got.ID == "" {
		t.Fatalf("erin comments: %d %s", a.status, a.body)
	}
	if a := post("dana", "Ops say it is fixed <b>tomorrow</b>."); a.status != http.StatusCreated {
		t.Fatalf("dana comments: %d %s", a.status, a.body)
	}
	var thread []apiComment
	a = do(t, srv, asUser("dana", call{path: "/api/comments?" + url.Values{"rule": {f.Rule}, "entity_id": {f.EntityID}}.Encode()}))
	if json.Unmarshal([]byte(a.body), &thread) != nil || len(thread) != 2 || thread[0].By != "erin" || thread[1].By != "dana" || thread[1].At.Before(thread[0].At) {
		t.Fatalf("the thread: %+v", thread)
	}
	counted := 0
	for _, x := range findingsOf(t, srv, "erin", "") {
		switch {
		case x.Rule == f.Rule && x.EntityID == f.EntityID && x.Comments != nil && *x.Comments == 2:
			counted++
		case x.Comments == nil || *x.Comments != 0:
			t.Fatalf("%s %s carries comments %v", x.Rule, x.EntityID, x.Comments)
		}
	}
	if counted != 1 {
		t.Fatalf("/api/findings: the commented finding counted %d times with 2 comments", counted)
	}
	page := "/entities/" + f.Entity + "/" + url.PathEscape(f.EntityID)
	rec := do(t, srv, asUser("erin", call{path: page}))
	if rec.status != http.StatusOK || !strings.Contains(rec.body, `id="comments"`) || !strings.Contains(rec.body, "Ops say it is fixed &lt;b&gt;tomorrow&lt;/b&gt;.") ||
		!strings.Contains(rec.body, `<strong class="by">dana</strong>`) || !strings.Contains(rec.body, `class="box comment-form"`) {
		t.Fatalf("the record page shows no thread: %d", rec.status)
	}
	form := formAs(t, srv, "erin", "/comments", url.Values{"rule": {f.Rule}, "entity_id": {f.EntityID}, "text": {"Done: credit note CN-7."}, "back": {page}})
	if form.status != http.StatusSeeOther || form.header.Get("Location") != page+"#comments" {
		t.Fatalf("the form's post: %d %q", form.status, form.header.Get("Location"))
	}
	if rec := do(t, srv, asUser("dana", call{path: page})); !strings.Contains(rec.body, "Done: credit note CN-7.") {
		t.Fatal("the record page does not show the comment posted by its form")
	}
	if audit := do(t, srv, asUser("erin", call{path: "/audit"})); !strings.Contains(audit.body, "commented on "+f.Rule+" "+f.EntityID) {
		t.Fatal("the audit log does not show the comments")
	}
	entries := ledgerEntries(t, fx)
	if len(entries) != 3 || entries[0].Action != "comment" || entries[0].Auth != "tokens" || entries[2].By != "erin" {
		t.Fatalf("ledger entries %+v", entries)
	}
	if _, err := ledgerOf(fx).Verify(); err != nil {
		t.Fatalf("verify: %v", err)
	}
}

// Bad comments: an unknown rule or record is 422 with one line; no text,
// text over 4,000 bytes or with control characters is refused (400), a
// body that is not JSON too; a ledger that does not verify refuses a
// comment (409). None writes.
func TestABadCommentIsRefusedByTheAPI(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := serveTwoUsers(t, fx)
	f := openOf(t, fx)
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{commentBody("no_such_rule", f.EntityID, "x"), http.StatusUnprocessableEntity, `no rule "no_such_rule"`},
		{commentBody(f.Rule, "no-such-record", "x"), http.StatusUnprocessableEntity, `comment: no finding of rule ` + f.Rule + ` names record "no-such-record"`},
		{commentBody(f.Rule, f.EntityID, " "), http.StatusBadRequest, "text required"},
		{commentBody(f.Rule, f.EntityID, strings.Repeat("é", 2001)), http.StatusBadRequest, "longer than 4000 bytes"},
		{commentBody(f.Rule, f.EntityID, "red \x1b[31m"), http.StatusBadRequest, "control character"},
		{`{"rule": "` + f.Rule + `", "text": "x", "color": "red"}`, http.StatusBadRequest, "unknown field"},
	} {
		a := do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/comments", body: c.body}))
		var e struct{ Error string }
		if a.status != c.status || json.Unmarshal([]byte(a.body), &e) != nil || !strings.Contains(e.Error, c.says) || strings.Contains(e.Error, "\n") {
			t.Errorf("%.60s: %d %s; want %d saying %q on one line", c.body, a.status, a.body, c.status, c.says)
		}
	}
	if e := ledgerEntries(t, fx); len(e) != 0 {
		t.Fatalf("refused comments wrote %d entries", len(e))
	}
	post := func() answer {
		return do(t, srv, asUser("erin", call{method: http.MethodPost, path: "/api/comments", body: commentBody(f.Rule, f.EntityID, "first")}))
	}
	if a := post(); a.status != http.StatusCreated {
		t.Fatalf("a comment: %d %s", a.status, a.body)
	}
	path := ledgerOf(fx).Path()
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"text":"first"`), []byte(`"text":"forged"`), 1), 0o644)
	if a := post(); a.status != http.StatusConflict || !strings.Contains(a.body, "billsnap ledger verify") {
		t.Fatalf("a comment on a ledger that does not verify: %d %s", a.status, a.body)
	}
}
