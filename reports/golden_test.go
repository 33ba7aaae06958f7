package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"

	"github.com/billsnap/billsnap/internal/golden"
)

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, fixture(t), []string{"/out/reports/2026-11-22T030005Z/report.html", "/out/reports/2026-11-22T030005Z/findings.csv"}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "summary.md.golden", b.Bytes())
}

func TestTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, fixture(t).Report); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "text.golden", b.Bytes())
}

func TestCSVGolden(t *testing.T) {
	var b bytes.Buffer
	in := fixture(t)
	if err := CSV(&b, in.Report, in.Work); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "findings.csv.golden", b.Bytes())
	rows, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
	if err != nil || len(rows) != 6 || rows[2][6] != `charge "quoted", with a comma` {
		t.Errorf("CSV does not read back: %v, %d rows", err, len(rows))
	}
}

func TestJSONDocumentGolden(t *testing.T) {
	var b bytes.Buffer
	if err := JSONDocument(&b, fixture(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "findings.json.golden", b.Bytes())
	var doc struct {
		Schema   string
		Findings []FindingJSON
		Rules    []map[string]any
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Schema != DocumentSchema || len(doc.Findings) != 5 || len(doc.Rules) != 16 {
		t.Errorf("the document does not read back: %v %+v", err, doc.Schema)
	}
	if f := doc.Findings[3]; !f.Waived || f.Waiver == nil || f.Waiver.Owner != "ann@finance" || f.Amount != "1234.56" {
		t.Errorf("waived finding %+v", f)
	}
}

func TestJSONLines(t *testing.T) {
	var b bytes.Buffer
	if err := JSONLines(&b, fixture(t).Report); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	var f FindingJSON
	if len(lines) != 5 || json.Unmarshal(lines[2], &f) != nil || f.Detail != "line of invoice INV-1 bills 199.50 a unit; <b>product</b> costs 198.00 in DKK" || f.Amount != "-4.50" {
		t.Errorf("%d lines, third %+v", len(lines), f)
	}
}
