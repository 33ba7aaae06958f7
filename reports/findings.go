package reports

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/csvsafe"
)

// FindingJSON is one finding as JSON: the fields of the rules document,
// with amount as a decimal string, plus status, first_seen and the waiver.
type FindingJSON struct {
	Rule      string      `json:"rule"`
	Severity  string      `json:"severity"`
	Entity    string      `json:"entity"`
	EntityID  string      `json:"entity_id"`
	Amount    string      `json:"amount"`
	Currency  string      `json:"currency"`
	Detail    string      `json:"detail"`
	Status    string      `json:"status"`
	FirstSeen string      `json:"first_seen"`
	Waived    bool        `json:"waived"`
	Waiver    *WaiverJSON `json:"waiver,omitempty"`
	Snapshot  string      `json:"snapshot_id"`
	Live      string      `json:"live,omitempty"`       // what billsnap recheck last found: confirmed, changed or gone
	CheckedAt string      `json:"checked_at,omitempty"` // when (RFC 3339, UTC)
	// The customer of the record it names (ID and name) and its invoice's
	// number; "" when it has none or it was not found.
	CustomerID    string `json:"customer_id"`
	CustomerName  string `json:"customer_name"`
	InvoiceNumber string `json:"invoice_number"`
}

// WaiverJSON is the waiver that covers a finding.
type WaiverJSON struct {
	Reason     string `json:"reason"`
	ReasonCode string `json:"reason_code,omitempty"` // the catalogue's code (worklist.reasons), when the waiver gives one
	Owner      string `json:"owner"`
	Expires    string `json:"expires"`
	ID         string `json:"id,omitempty"` // a waiver made in the workspace: its ID
	By         string `json:"by,omitempty"` // and who made it
}

func findingJSON(r *findings.Report, f findings.Finding) FindingJSON {
	j := FindingJSON{Rule: f.Rule, Severity: f.Severity, Entity: f.Entity, EntityID: f.EntityID, Amount: f.Amount.String(),
		Currency: f.Currency, Detail: f.Detail, Status: f.Status, FirstSeen: f.FirstSeen, Snapshot: r.Snapshot.ID, Live: f.Live,
		CustomerID: f.CustomerID, CustomerName: f.CustomerName, InvoiceNumber: f.InvoiceNumber}
	if !f.CheckedAt.IsZero() {
		j.CheckedAt = f.CheckedAt.UTC().Format(time.RFC3339)
	}
	if f.Waiver != nil {
		j.Waived = true
		j.Waiver = &WaiverJSON{Reason: f.Waiver.Reason, ReasonCode: f.Waiver.ReasonCode, Owner: f.Waiver.Owner, Expires: f.Waiver.Expires.Format("2006-01-02"),
			ID: f.Waiver.ID, By: f.Waiver.By}
	}
	return j
}

// JSONLines writes one JSON object per line per finding, resolved ones last.
func JSONLines(w io.Writer, r *findings.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, f := range r.Findings {
		if err := enc.Encode(findingJSON(r, f)); err != nil {
			return err
		}
	}
	return nil
}

// JSONArray writes the findings as one JSON array of the objects
// JSONLines writes, in the same order.
func JSONArray(w io.Writer, r *findings.Report) error {
	out := make([]FindingJSON, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = findingJSON(r, f)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// csvHeader is the header row of CSV.
var csvHeader = []string{"rule", "severity", "entity", "entity_id", "amount", "currency", "detail", "status", "first_seen",
	"waived", "waiver_reason", "waiver_owner", "waiver_expires", "snapshot_id", "waiver_id", "waiver_by", "live", "checked_at",
	"customer_id", "customer_name", "invoice_number", "waiver_reason_code", "assignee", "due", "overdue", "comments", "resolution_code"}

// CSV writes every finding as RFC 4180 CSV, UTF-8, with a header row,
// each with its work (work: its waiver's reason code, assignee, due date,
// overdue when assigned, its comments, one a line, and its resolution's
// reason code; nil: none). No
// cell is a live formula: a text cell beginning with = + - @ TAB or CR
// gets a leading "'" (csvsafe.Text); an amount that is a decimal number is
// written as it is (csvsafe.Number).
func CSV(w io.Writer, r *findings.Report, work WorkOf) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, f := range r.Findings {
		j := findingJSON(r, f)
		row := []string{j.Rule, j.Severity, j.Entity, j.EntityID, j.Amount, j.Currency, j.Detail, j.Status, j.FirstSeen,
			strconv.FormatBool(j.Waived), "", "", "", j.Snapshot, "", "", j.Live, j.CheckedAt,
			j.CustomerID, j.CustomerName, j.InvoiceNumber}
		code, assignee, due, overdue, comments, resolution := work.workCells(f)
		row = append(row, code, assignee, due, overdue, comments, resolution)
		if w := j.Waiver; w != nil {
			row[10], row[11], row[12], row[14], row[15] = w.Reason, w.Owner, w.Expires, w.ID, w.By
		}
		for i := range row {
			row[i] = csvsafe.Text(row[i])
		}
		row[4] = csvsafe.Number(j.Amount)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
