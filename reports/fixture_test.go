package reports

import (
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/money"
)

var t0 = time.Date(2026, 11, 22, 3, 0, 5, 0, time.UTC)

// fixture is a small reconciliation with every kind of finding: new,
// recurring, resolved, waived, three currencies, text that needs quoting
// in CSV and escaping in HTML.
func fixture(t *testing.T) *Input {
	t.Helper()
	w := &findings.Waiver{Rule: "paid_without_payment", EntityID: "b2c3d4e5-0000-4000-8000-000000000002", Reason: "paid in cash, booked by hand",
		ReasonCode: "customer_agreement", Owner: "ann@finance", Expires: findings.Date{Time: time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)}}
	f := func(rule, sev, entity, id string, amount money.Amount, cur, detail, status, first string) findings.Finding {
		return findings.Finding{Rule: rule, Severity: sev, Entity: entity, EntityID: id, Amount: amount, Currency: cur, Detail: detail, Status: status, FirstSeen: first}
	}
	found := []findings.Finding{
		f("charge_not_invoiced", "high", "subscription_charge", "a1b2c3d4-0000-4000-8000-000000000001", 24950, "EUR",
			"charge of 2 × product p1 on subscription s1, charged 2026-10-01, is on no invoice line", "new", "2026-11-22T030005Z"),
		f("charge_not_invoiced", "high", "subscription_charge", "a1b2c3d4-0000-4000-8000-000000000009", 1000, "USD",
			`charge "quoted", with a comma`, "recurring", "2026-11-21T030004Z"),
		f("price_mismatch", "medium", "invoice_line", "c3d4e5f6-0000-4000-8000-000000000003", -450, "DKK",
			"line of invoice INV-1 bills 199.50 a unit; <b>product</b> costs 198.00 in DKK", "new", "2026-11-22T030005Z"),
		f("paid_without_payment", "critical", "invoice", "b2c3d4e5-0000-4000-8000-000000000002", 123456, "EUR",
			"invoice INV-7 of 1234.56 EUR is marked paid on 2026-10-09 but no settled payment names it", "recurring", "2026-11-20T030003Z"),
		f("missed_billing_run", "critical", "subscription_charge", "d4e5f6a7-0000-4000-8000-000000000004", 0, "EUR",
			"resolved since", "resolved", "2026-11-20T030003Z"),
	}
	found[3].Waiver = w
	found[0].CustomerID, found[0].CustomerName = "e5f6a7b8-0000-4000-8000-000000000005", "Nordlys ApS"
	found[1].CustomerID, found[1].CustomerName = "e5f6a7b8-0000-4000-8000-000000000006", "Café Ørsted, \"the\" shop"
	found[2].CustomerID, found[2].CustomerName, found[2].InvoiceNumber = "e5f6a7b8-0000-4000-8000-000000000005", "Nordlys ApS", "INV-1"
	found[3].CustomerID, found[3].InvoiceNumber = "e5f6a7b8-0000-4000-8000-000000000007", "INV-7" // its name not found
	rep := &findings.Report{
		Snapshot: findings.SnapshotInfo{ID: "2026-11-22T030005Z", Status: "complete", Started: t0, Finished: t0.Add(5600 * time.Millisecond)},
		Previous: "2026-11-21T030004Z", AsOf: t0, Rules: fixtureRules, Findings: found,
		Material: []string{"charge_not_invoiced (high): 2 unwaived findings, threshold 1"},
		Unjudged: []findings.Unjudged{{Rule: "price_mismatch", Table: "invoice_lines", Field: "UnitPrice", Types: "string", Records: 2}},
		HeldBack: map[string]int{"price_mismatch": 1}, NotJudged: map[string]int{"price_mismatch": 2},
	}
	tables := []manifest.TableStats{
		{Table: "customers", Collection: "customers", Walks: 1, Pages: 3, Received: 278, Distinct: 278, TotalCount: 278, ParquetRows: 278, DuckDBRows: 278, IDsSHA256: "cd6e", Seconds: 0.04, Complete: true},
		{Table: "invoices", Collection: "invoices", Walks: 2, Pages: 13, Received: 1231, Distinct: 1230, TotalCount: 1230, ParquetRows: 1230, DuckDBRows: 1230, IDsSHA256: "9f1a", Seconds: 0.21, Complete: true},
		{Table: "invoice_lines", Collection: "invoices", Walks: 2, Pages: 13, Received: 2485, Distinct: -1, TotalCount: -1, ParquetRows: 2485, DuckDBRows: 2485, IDsSHA256: "77b0", Seconds: 0.21, Complete: true},
	}
	trend := []findings.TrendPoint{
		{Snapshot: "2026-11-20T030003Z", Started: t0.AddDate(0, 0, -2), BySeverity: map[string]int{"critical": 2}, Amounts: map[string]money.Amount{"EUR": 123456}},
		{Snapshot: "2026-11-21T030004Z", Started: t0.AddDate(0, 0, -1), BySeverity: map[string]int{"critical": 1, "high": 1}, Amounts: map[string]money.Amount{"USD": 1000}},
		{Snapshot: "2026-11-22T030005Z", Started: t0, BySeverity: map[string]int{"critical": 1, "high": 2, "medium": 1}, Amounts: map[string]money.Amount{"EUR": 24950, "USD": 1000, "DKK": -450}},
	}
	fields := []manifest.FieldStats{
		{Table: "customers", Column: "full_name", Field: "FullName", Kind: "string", Types: manifest.TypeCounts{String: 278}},
		{Table: "invoices", Column: "invoice_number", Field: "InvoiceNumber", Kind: "string"},
		{Table: "invoice_lines", Column: "unit_price", Field: "UnitPrice", Kind: "money", Types: manifest.TypeCounts{Number: 2400, String: 85},
			Coerced: 83, Untyped: 2, Example: "c3d4e5f6-0000-4000-8000-000000000003"},
		{Table: "customers", Field: "Culture", Types: manifest.TypeCounts{String: 278}},
	}
	return &Input{Report: rep, Tables: tables, Fields: fields, Trend: trend, ExitCode: 3, Generated: t0.Add(time.Minute), MaxRows: 1,
		Work: fixtureWork}
}

// fixtureWork is the fixture's work: its first finding assigned to dana,
// overdue, with a thread of two comments (one of two lines, one that
// reads as a formula); its third assigned to erin, not yet due; its
// resolved one resolved as corrected at the source.
func fixtureWork(f findings.Finding) FindingWork {
	switch f.EntityID {
	case "a1b2c3d4-0000-4000-8000-000000000001":
		return FindingWork{Assignee: "dana", Due: "2026-11-20", Overdue: true, Comments: []ledger.Commented{
			{Comment: ledger.Comment{ID: "C1", Rule: f.Rule, EntityID: f.EntityID, Text: "Asked billing ops.\nTicket OPS-42."}, By: "erin", At: t0.Add(-time.Hour)},
			{Comment: ledger.Comment{ID: "C2", Rule: f.Rule, EntityID: f.EntityID, Text: "=1+1 <b>not bold</b>"}, By: "dana", At: t0.Add(-time.Minute)}}}
	case "c3d4e5f6-0000-4000-8000-000000000003":
		return FindingWork{Assignee: "erin", Due: "2026-12-01"}
	case "d4e5f6a7-0000-4000-8000-000000000004":
		return FindingWork{Resolution: "corrected_at_source"}
	}
	return FindingWork{}
}
