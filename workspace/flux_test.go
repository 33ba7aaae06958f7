package workspace

import (
	"archive/zip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/money"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/workspace/fluxreview"
)

// fluxOfAPI gets the flux review of period as user.
func fluxOfAPI(t *testing.T, send func(call) answer, period string) fluxreview.API {
	t.Helper()
	a := send(as("dana", call{path: "/api/flux?period=" + period}))
	var v fluxreview.API
	if a.status != http.StatusOK || json.Unmarshal([]byte(a.body), &v) != nil {
		t.Fatalf("GET /api/flux?period=%s: %d %s", period, a.status, a.body)
	}
	return v
}

// fluxLine is the line of measure in cur, or nil.
func fluxLine(v fluxreview.API, measure, cur string) *fluxreview.APILine {
	for i := range v.Lines {
		if v.Lines[i].Measure == measure && v.Lines[i].Currency == cur {
			return &v.Lines[i]
		}
	}
	return nil
}

// billedBySandbox sums the TotalAmount of the invoices the sandbox
// serves, dated in period p, per currency: what billed must say.
func billedBySandbox(t *testing.T, sb *sandbox.Server, p *findings.Period) map[string]money.Amount {
	t.Helper()
	recs, err := sb.Served("Invoices")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]money.Amount{}
	for _, r := range recs {
		var inv struct {
			InvoiceDate  time.Time
			CurrencyCode string
			TotalAmount  json.Number
		}
		if err := json.Unmarshal(r.JSON, &inv); err != nil {
			t.Fatal(err)
		}
		if !inv.InvoiceDate.Before(p.Start) && inv.InvoiceDate.Before(p.End()) {
			a, err := money.Parse(inv.TotalAmount.String())
			if err != nil {
				t.Fatal(err)
			}
			out[inv.CurrencyCode] += a
		}
	}
	return out
}

// bigInvoice adds an invoice of amount in cur, dated in the middle of p,
// to the sandbox, as a back office would, and gives its ID.
func bigInvoice(t *testing.T, sb *sandbox.Server, p *findings.Period, cur string, amount money.Amount) string {
	t.Helper()
	recs, _ := sb.Served("Customers")
	var c struct{ ID string }
	json.Unmarshal(recs[0].JSON, &c)
	id := "f1a70000-0000-4000-8000-000000000001"
	inv := &sandbox.Invoice{ID: id, InvoiceNumber: "FLUX-1", CustomerID: c.ID, InvoiceDate: p.Start.AddDate(0, 0, 14), DueDate: p.Start.AddDate(0, 0, 28),
		CurrencyCode: cur, TotalAmount: sandbox.Money(amount), InvoiceLines: []*sandbox.InvoiceLine{}}
	if err := sb.Add("Invoices", inv); err != nil {
		t.Fatal(err)
	}
	return id
}

// explainFlux explains, as user, every line of period's flux review over
// the threshold that no current explanation covers: what a sign-off of
// the period waits for.
func explainFlux(t *testing.T, send func(call) answer, period, user string) {
	t.Helper()
	for _, l := range fluxOfAPI(t, send, period).Lines {
		if l.Over && (l.Explanation == nil || l.Explanation.Stale) {
			b, _ := json.Marshal(map[string]string{"measure": l.Measure, "currency": l.Currency, "text": "reviewed with the sales ledger"})
			if a := send(as(user, call{method: http.MethodPost, path: "/api/flux/" + period + "/explanations", body: string(b)})); a.status != http.StatusCreated {
				t.Fatalf("explaining %s %s of %s: %d %s", l.Measure, l.Currency, period, a.status, a.body)
			}
		}
	}
}

// checkClosedFlux checks that the closed record's reports (files, under
// the store root) give the period's flux review with its explanations:
// the Markdown and HTML sections, and the XLSX's Flux sheet.
func checkClosedFlux(t *testing.T, root string, files []ledger.File, period string) {
	t.Helper()
	want := map[string][]string{"summary.md": {"## Flux review of " + period, "explained by erin"},
		"report.html": {"<h2>Flux review of " + period, "explained by erin"}, "findings.xlsx": {`name="Flux"`}}
	for _, f := range files {
		words, ok := want[filepath.Base(f.Path)]
		if !ok {
			continue
		}
		delete(want, filepath.Base(f.Path))
		text := readRecordFile(t, filepath.Join(root, f.Path))
		for _, w := range words {
			if !strings.Contains(text, w) {
				t.Errorf("the closed record's %s lacks %q", f.Path, w)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("the closed record lacks %v", want)
	}
}

// readRecordFile is a closed record's file as text; for an XLSX, its
// workbook part (the sheets' names).
func readRecordFile(t *testing.T, path string) string {
	t.Helper()
	if !strings.HasSuffix(path, ".xlsx") {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open("xl/workbook.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return string(b)
}
