package workspace

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/workspace/guard"
)

//go:embed templates/*.tmpl assets/*
var files embed.FS

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"utc": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"day":     func(d findings.Date) string { return d.Format(time.DateOnly) },
	"grouped": func(a money.Amount) string { return a.Grouped() },
	"money":   moneyText,
	// amount is a finding's amount: findings.NoMoney when it carries none (0).
	"amount": func(a money.Amount) string {
		if a == 0 {
			return findings.NoMoney
		}
		return a.Grouped()
	},
	"amountText": func(text string) string {
		if a, err := money.Parse(text); err == nil && a == 0 {
			return findings.NoMoney
		}
		return moneyText(text)
	},
	"entityURL": func(entity, id string) template.URL {
		return template.URL("/entities/" + url.PathEscape(entity) + "/" + url.PathEscape(id))
	},
	"idParts":   idParts,
	"ruleParts": func(rule string) []string { return strings.SplitAfter(rule, "_") },
	"snapParts": snapParts,
	"add":       func(a, b int) int { return a + b },
	"plural":    plural.Any,
	// waiveURL is the waive form of a finding, coming back to back.
	"waiveURL": func(rule, entityID, back string) template.URL {
		return template.URL("/waive?" + url.Values{"rule": {rule}, "entity_id": {entityID}, "back": {back}}.Encode())
	},
	// assignURL is the assign form of a finding, coming back to back.
	"assignURL": func(rule, entityID, back string) template.URL {
		return template.URL("/assign?" + url.Values{"rule": {rule}, "entity_id": {entityID}, "back": {back}}.Encode())
	},
}

// idParts is a record's ID cut after each slash, so that a list may
// break a compound ID (an invoice and its line) between its parts, never
// inside one: each part is shown unbroken (class nw), a <wbr> between.
func idParts(id string) []string {
	return strings.SplitAfter(id, "/")
}

// snapParts is a snapshot's ID (2026-11-29T115039Z) cut before its
// time, so that a narrow column shows the day over the time.
func snapParts(id string) []string {
	if i := strings.IndexByte(id, 'T'); i > 0 {
		return []string{id[:i], id[i:]}
	}
	return []string{id}
}

// moneyText is a decimal text as the overview shows amounts: 1,234.50.
func moneyText(text string) string {
	if a, err := money.Parse(text); err == nil {
		return a.Grouped()
	}
	return text
}

// pages are the templates, each page with the layout.
var pages = func() map[string]*template.Template {
	layout := template.Must(template.New("layout.tmpl").Funcs(funcs).ParseFS(files, "templates/layout.tmpl"))
	names, err := fs.Glob(files, "templates/*.tmpl")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".tmpl")
		if name == "layout" {
			continue
		}
		out[name] = template.Must(template.Must(layout.Clone()).ParseFS(files, n))
	}
	return out
}()

// view is what every page gets: its own data, and the session's.
type view struct {
	Title   string
	CSRF    string
	Session bool        // a login's session: show the logout
	User    access.User // who is signed in, with identity
	Page    any
}

// render writes page name with data, status code first; a template that
// fails writes an error instead, never half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, name string, data any) {
	var b bytes.Buffer
	v := view{Title: titles[name], CSRF: s.g.CSRF(r), Session: name != "login" && s.g.InSession(r), User: guard.User(r), Page: data}
	if err := pages[name].ExecuteTemplate(&b, "layout", v); err != nil {
		s.o.Log.Error("workspace: rendering a page", "page", name, "error", err)
		http.Error(w, "the page could not be rendered; the log says why", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

var titles = map[string]string{"overview": "Overview", "findings": "Findings", "entity": "Record", "waive": "Waive a finding",
	"waivers": "Waivers", "login": "Log in", "error": "Error", "audit": "Audit log", "changes": "Changes",
	"assign": "Assign a finding",
	"flux":   "Flux review"}

// errorPage is a page that says what went wrong.
type errorPage struct {
	Code    int
	Message string
}

// fail answers with err: JSON for the API, a page otherwise. A missing
// store or snapshot, or a bad parameter, says so; anything else is logged.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	if at, ok := r.Context().Value(attemptKey{}).(*attempt); ok && readmodel.TornRead(err) {
		at.err = err
		return
	}
	if code >= 500 {
		s.o.Log.Error("workspace", "path", r.URL.Path, "error", err)
	}
	if isAPI(r) {
		writeJSONError(w, code, err)
		return
	}
	s.render(w, r, code, "error", errorPage{Code: code, Message: err.Error()})
}

// failStore answers with an error reading the store, choosing its status.
func (s *Server) failStore(w http.ResponseWriter, r *http.Request, err error) {
	var unknown *reconcile.UnknownSnapshotError
	var notRec *reconcile.NotReconciledError
	switch {
	case errors.As(err, &unknown), errors.As(err, &notRec), errors.Is(err, reconcile.ErrNoSnapshot), errors.Is(err, snapshot.ErrNoStore):
		s.fail(w, r, http.StatusNotFound, err)
	default:
		s.fail(w, r, http.StatusInternalServerError, err)
	}
}

// answers are the workspace's pages as the guard answers through them.
type answers struct{ s *Server }

func (a answers) Fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	a.s.fail(w, r, code, err)
}

// Refuse answers code with err without rendering the session's page.
func (a answers) Refuse(w http.ResponseWriter, r *http.Request, code int, err error) {
	if isAPI(r) {
		writeJSONError(w, code, err)
		return
	}
	http.Error(w, err.Error(), code)
}

func (a answers) Login(w http.ResponseWriter, r *http.Request, code int, p guard.LoginPage) {
	a.s.render(w, r, code, "login", p)
}

// isAPI tells whether r is for the JSON API.
func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func writeJSONError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

// assets serves the embedded stylesheet and script.
func assets() http.Handler {
	sub, err := fs.Sub(files, "assets")
	if err != nil {
		panic(err)
	}
	return http.StripPrefix("/assets/", http.FileServerFS(sub))
}
