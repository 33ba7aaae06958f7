package workspace

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/reconcile"
)

// selectedRE is an option the compare form selects.
var selectedRE = regexp.MustCompile(`<option selected>([^<]+)</option>`)

// The record page shows an invoice line's currency (its invoice's) and
// explains the finding's sign; its Compare defaults to two different
// snapshots, and with one snapshot says there is nothing to compare, as
// the overview's trend of one reconciliation says so instead of an empty
// chart.
func TestTheRecordPageAndTrendSayWhatTheyShow(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	srv := fx.serve(t, "")
	var line reconcile.Finding
	for _, f := range fx.reconcile(t).Open() {
		if f.Entity == "invoice_line" && f.Currency != "" {
			line = f
			break
		}
	}
	if line.EntityID == "" {
		t.Fatal("the fixture has no finding of an invoice line")
	}
	path := "/entities/invoice_line/" + url.PathEscape(line.EntityID)
	page := do(t, srv, call{path: path}).body
	if !strings.Contains(page, "<th>currency_code</th><td>"+line.Currency+" (its invoice&#39;s)</td>") {
		t.Errorf("the invoice line's page does not show its currency %s", line.Currency)
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

	fx.export(t)
	fx.reconcile(t)
	page = do(t, srv, call{path: path}).body
	sel := selectedRE.FindAllStringSubmatch(page, -1)
	if len(sel) != 2 || sel[0][1] == sel[1][1] {
		t.Errorf("the compare form's defaults over two snapshots: %v", sel)
	}
	if overview := do(t, srv, call{path: "/"}).body; strings.Contains(overview, `id="trend-note"`) {
		t.Error("a trend of two reconciliations still says it has one")
	}
}
