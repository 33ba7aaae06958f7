package workspace

import (
	"context"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/snapshot"
)

// selectedRE is an option the compare form selects.
var selectedRE = regexp.MustCompile(`<option selected>([^<]+)</option>`)

// The record page shows an invoice line's currency (its invoice's) and
// explains the finding's sign; with one snapshot its Compare says there
// is nothing to compare, as the overview's trend of one reconciliation
// says so instead of an empty chart; a charge's page shows its status's
// label beside it. With two snapshots (TestDrillDown's),
// Compare defaults to two different ones (checkTwoToCompare).
func TestTheRecordPageAndTrendSayWhatTheyShow(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	line := lineFinding(t, fx)
	path := "/entities/invoice_line/" + url.PathEscape(line.EntityID)
	page := do(t, srv, call{path: path}).body
	if !strings.Contains(page, "<th>currency_code</th><td>"+line.Currency+" (its invoice&#39;s)</td>") {
		t.Errorf("the invoice line's page does not show its currency %s", line.Currency)
	}
	charge := chargeLinkRE.FindStringSubmatch(page)
	if charge == nil {
		t.Fatal("the invoice line's page links no subscription charge")
	}
	if p := do(t, srv, call{path: "/entities/subscription_charge/" + charge[1]}).body; !statusLabelRE.MatchString(p) {
		t.Error("the subscription charge's page shows no label beside its status")
	}
	if !strings.Contains(page, `id="sign-note"`) || !strings.Contains(page, "sign turned") {
		t.Error("the record page does not explain the finding's sign")
	}
	if !strings.Contains(page, `id="compare-note"`) || strings.Contains(page, `id="diff-form"`) {
		t.Error("a record of one snapshot offers to compare it with itself")
	}
	if overview := do(t, srv, call{path: "/"}).body; !strings.Contains(overview, "One reconciliation so far") {
		t.Error("a trend of one reconciliation does not say so")
	}
}

var (
	chargeLinkRE  = regexp.MustCompile(`href="/entities/subscription_charge/([^"?]+)"`)
	statusLabelRE = regexp.MustCompile(`<th>status</th><td>[17]</td>.*<th>status_label</th><td>(active|charged): `)
)

// lineFinding is an open finding of the fixture's reconciliation of an
// invoice line with a currency.
func lineFinding(t *testing.T, fx *fixture) findings.Finding {
	t.Helper()
	for _, f := range fx.reconciled.Open() {
		if f.Entity == "invoice_line" && f.Currency != "" {
			return f
		}
	}
	t.Fatal("the fixture has no finding of an invoice line")
	return findings.Finding{}
}

// checkTwoToCompare checks, on srv serving fx's store once it holds two
// reconciled snapshots, that an invoice line's record page defaults its
// Compare to two different snapshots and the overview's trend no longer
// says it has one reconciliation.
func checkTwoToCompare(t *testing.T, fx *fixture, srv *httptest.Server) {
	t.Helper()
	page := do(t, srv, call{path: "/entities/invoice_line/" + url.PathEscape(lineFinding(t, fx).EntityID)}).body
	sel := selectedRE.FindAllStringSubmatch(page, -1)
	if len(sel) != 2 || sel[0][1] == sel[1][1] {
		t.Errorf("the compare form's defaults over two snapshots: %v", sel)
	}
	if overview := do(t, srv, call{path: "/"}).body; strings.Contains(overview, `id="trend-note"`) {
		t.Error("a trend of two reconciliations still says it has one")
	}
}

// deepestCustomers are the IDs of the latest snapshot's customers with
// the longest and the shortest raw JSON.
func deepestCustomers(t *testing.T, fx *fixture) (deep, shallow string) {
	t.Helper()
	db, err := snapshot.OpenRead(context.Background(), fx.cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := "SELECT arg_max(id, length(CAST(_raw AS VARCHAR))), arg_min(id, length(CAST(_raw AS VARCHAR))) FROM customers WHERE snapshot_id = (SELECT id FROM latest_snapshot)"
	if err := db.QueryRow(q).Scan(&deep, &shallow); err != nil {
		t.Fatal(err)
	}
	return deep, shallow
}
