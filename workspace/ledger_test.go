package workspace

import (
	"bytes"
	"database/sql"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/ledger/ledgertest"
)

// Every write of the workspace on a ledger whose chain is broken is a
// 409 naming billsnap ledger verify, and leaves the ledger as it was; a
// read of a chained line that is not a valid entry is answered, never a
// panic.
func TestAWriteOnABrokenChainIsAConflict(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	var ids []string // records paid_without_payment names: a waiver must name a finding
	for _, f := range fx.reconciled.Open() {
		if f.Rule == "paid_without_payment" {
			ids = append(ids, f.EntityID)
		}
	}
	if len(ids) < 2 {
		t.Fatalf("the fixture has %d paid_without_payment findings, not 2", len(ids))
	}
	waiver := func(entity string) call {
		return call{method: http.MethodPost, path: "/api/waivers", contentType: "application/json",
			body: `{"rule":"paid_without_payment","entity_id":"` + entity + `","reason":"cheque","owner":"ann","expires":"2099-12-31","by":"carol"}`}
	}
	for _, e := range ids[:2] {
		if a := do(t, srv, waiver(e)); a.status != http.StatusCreated {
			t.Fatalf("POST /api/waivers: %d %s", a.status, a.body)
		}
	}
	path := ledgerOf(fx).Path()
	b, _ := os.ReadFile(path)
	edited := bytes.Replace(b, []byte(`"entity_id":"`+ids[0]+`"`), []byte(`"entity_id":"e9"`), 1)
	os.WriteFile(path, edited, 0o644)
	for _, c := range []call{
		waiver(ids[1]),
		{method: http.MethodDelete, path: "/api/waivers/W2?by=carol"},
		{method: http.MethodPost, path: "/api/signoffs", contentType: "application/json", body: `{"name":"dana","role":"controller"}`},
		{method: http.MethodPost, path: "/api/periods/2026-10/close", contentType: "application/json", body: `{"by":"dana"}`},
		{method: http.MethodPost, path: "/api/periods/2026-10/reopen", contentType: "application/json", body: `{"reason":"late","by":"dana"}`},
	} {
		a := do(t, srv, c)
		if a.status != http.StatusConflict || !strings.Contains(a.body, "billsnap ledger verify") || !strings.Contains(a.body, "line 1 (seq 1)") {
			t.Errorf("%s %s on a broken chain: %d %s", c.method, c.path, a.status, a.body)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, edited) {
			t.Fatalf("%s %s changed the ledger", c.method, c.path)
		}
	}
	os.WriteFile(path, b, 0o644)
	ledgertest.Append(t, path, `{"seq":3,"at":"2026-11-25T12:00:00Z","by":"m","action":"waive"}`)
	for _, p := range []string{"/api/waivers", "/waivers", "/audit", "/api/signoffs"} {
		if a := do(t, srv, call{path: p}); a.status == http.StatusOK || !strings.Contains(a.body, "line 3 (seq 3) is not a valid entry") {
			t.Errorf("GET %s with a malformed line: %d %s", p, a.status, a.body)
		}
	}
	if a := do(t, srv, waiver(ids[0])); a.status != http.StatusConflict {
		t.Errorf("a write after a malformed line: %d %s", a.status, a.body)
	}
}

// A handler that panics lets go of the read model all the same (net/http
// recovers the panic): Close, which serve's shutdown waits for, returns.
func TestAPanickingHandlerLetsGoOfTheReadModel(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	opts, err := job.ReconcileOptions(fx.cfg, "", "")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := New(Options{Store: fx.cfg.Options, Reconcile: opts, Ledger: ledgerOf(fx), Log: quiet, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(ws.withDB(func(http.ResponseWriter, *http.Request, *sql.DB) { panic("a handler's bug") }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	defer srv.Close()
	if resp, err := http.Get(srv.URL); err == nil {
		resp.Body.Close()
		t.Fatalf("the panicking handler answered %d", resp.StatusCode)
	}
	closed := make(chan error, 1)
	go func() { closed <- ws.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waits for the read model 10 s after the panic")
	}
}
