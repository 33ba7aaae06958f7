// Package workspace is the finance workspace, `billsnap serve`: pages
// rendered on the server (html/template, every asset embedded) and a JSON
// API over a store's read model, where the month's findings are reviewed,
// waived and signed off.
//
// It reads the store as any reader does: the read model, opened read-only
// and opened again when a publish replaces it, so that it never stops a
// job and a job never stops it. It writes the ledger (package ledger):
// waivers, sign-offs and closes, each an audit record, which the next
// reconciliation and the reports read; and, when a period closes, its
// closed record (the reports' files beside the findings). A GET never
// writes.
//
// It is safe by default: package guard lets in only who may come in (a
// loopback Host without a token; else the token, a session or an
// identity), and keys the forms' CSRF tokens. Writes refuse cross-origin
// browser requests (Sec-Fetch-Site and Origin).
//
// It reads the read model through snapshot/readmodel: the findings list's
// filter and sort become that package's Filter and Order. It shows what a
// waiver made since the last reconciliation changes (pending). It answers
// through package guard and reads one record through package record; the
// reconciliations it reads are package recon's, and its rooms (overview,
// closing, fluxreview, changes) read what their pages show; all stand
// below it and import none of it.
package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
	"github.com/billsnap/billsnap/worklist"
	"github.com/billsnap/billsnap/workspace/closing"
	"github.com/billsnap/billsnap/workspace/guard"
	"github.com/billsnap/billsnap/workspace/overview"
)

// Options configure a workspace.
type Options struct {
	Store     storeconfig.Options // where the store is, and its read model's file
	Reconcile reconcile.Options   // the rules (their order) and the materiality the findings are judged by
	Ledger    *ledger.Ledger
	Token     string // "" : no token; then only loopback Host names are answered
	// Access identifies users (workspace.identity) and holds their roles;
	// nil or without identity, the workspace is unattributed (Token as
	// above, names as typed).
	Access *access.Control
	// AllowUnattributed lets an unattributed write through once the
	// ledger holds attributed entries (workspace.allow_unattributed),
	// recorded in its entry; else it is refused (403).
	AllowUnattributed bool
	Trend             int // reconciliations in the overview's trend
	PageSize          int // findings per page
	Log               *slog.Logger
	Now               func() time.Time
	// SessionTTL is how long a login's session lasts (0: 12 h).
	SessionTTL time.Duration
	// Timeouts are the connections' (zero fields: DefaultTimeouts').
	Timeouts Timeouts
	// Worklist is the policy of assignments' default due dates and the
	// catalogue of reason codes (zero: worklist.Default()).
	Worklist worklist.Config
	// Flux is the threshold of the flux review (zero: flux.DefaultOptions).
	Flux flux.Options
}

// Timeouts bound how long a connection may take: to send its request's
// header, the whole request, to take the answer (Download for the files:
// the CSV, the XLSX and the evidence pack), and to sit idle between
// requests.
type Timeouts struct {
	ReadHeader, Read, Write, Download, Idle time.Duration
}

// DefaultTimeouts are a header in 10 s, a request (a body is at most
// 64 KiB) in 30 s, a page or an API answer taken in 10 min, a download in
// 1 h, and 2 min idle.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 10 * time.Minute,
		Download: time.Hour, Idle: 2 * time.Minute}
}

// or is t with its zero fields taken from d.
func (t Timeouts) or(d Timeouts) Timeouts {
	return Timeouts{ReadHeader: cmp.Or(t.ReadHeader, d.ReadHeader), Read: cmp.Or(t.Read, d.Read), Write: cmp.Or(t.Write, d.Write),
		Download: cmp.Or(t.Download, d.Download), Idle: cmp.Or(t.Idle, d.Idle)}
}

// Server is a workspace over one store.
type Server struct {
	o     Options
	model *readModel
	mux   *http.ServeMux
	g     *guard.Guard
	flux  overview.Cache // the overview's flux lines, per read model
}

// New makes the workspace of o.
func New(o Options) (*Server, error) {
	if o.Ledger == nil || o.Log == nil || o.Now == nil {
		return nil, errors.New("workspace: Ledger, Log and Now are required")
	}
	o.PageSize = max(o.PageSize, 1)
	if o.Flux == (flux.Options{}) {
		o.Flux = flux.DefaultOptions()
	}
	o.Timeouts = o.Timeouts.or(DefaultTimeouts())
	if o.Worklist.IsZero() {
		o.Worklist = worklist.Default()
	}
	if o.Worklist.Reasons == nil {
		o.Worklist.Reasons = worklist.DefaultReasons()
	}
	s := &Server{o: o, model: newReadModel(o.Store), mux: http.NewServeMux()}
	g, err := guard.New(guard.Options{Token: o.Token, Access: o.Access, Log: o.Log, Now: o.Now, SessionTTL: o.SessionTTL, Pages: answers{s}})
	if err != nil {
		return nil, err
	}
	s.g = g
	o.Ledger.Covering(closing.NewCovering(o.Store.Out).Covers)
	s.routes()
	return s, nil
}

// Close lets go of the read model.
func (s *Server) Close() error { return s.model.close() }

// Handler is the workspace's handler, its protections included: body
// limits, the guard, cross-origin protection and downloads' deadline.
func (s *Server) Handler() http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusForbidden, errors.New("cross-origin request refused"))
	}))
	return s.g.Handler(cop.Handler(s.downloads(s.mux)))
}

// CheckListen refuses an address that is not loopback when there is no
// token nor identity: the workspace shows money and customers, and takes
// waivers.
func CheckListen(addr string, hasToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT, such as 127.0.0.1:8080", addr)
	}
	if hasToken || guard.Loopback(host) {
		return nil
	}
	return fmt.Errorf("--listen %s is not a loopback address: give --token-file, or set workspace.identity, so that only those known get in", addr)
}

// HTTPServer is the workspace's http.Server: its Handler, and its
// Timeouts.
func (s *Server) HTTPServer() *http.Server {
	t := s.o.Timeouts
	return &http.Server{Handler: s.Handler(), ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write,
		IdleTimeout: t.Idle, MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(s.o.Log.Handler(), slog.LevelWarn)}
}

// downloads gives the files (findings.csv, findings.xlsx, evidence.zip)
// the Download deadline to be taken in, not Write's (the connection's
// deadlines are the wall clock's, as the http.Server's own are).
func (s *Server) downloads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch path.Ext(r.URL.Path) {
		case ".csv", ".xlsx", ".zip":
			http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.o.Timeouts.Download))
		}
		next.ServeHTTP(w, r)
	})
}

// Serve serves the workspace on l until ctx ends, then shuts down.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := s.HTTPServer()
	return serveUntil(ctx, srv, l, shutdownGrace)
}
