package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/manifest"
)

// DocumentSchema names the shape of the JSON document (docs/reports.md, "findings.json").
const DocumentSchema = "billsnap.findings/v1"

// document is findings.json without its findings, which are streamed.
type document struct {
	Schema      string               `json:"schema"`
	Snapshot    snapshotJSON         `json:"snapshot"`
	Previous    *string              `json:"previous_snapshot"`
	AsOf        time.Time            `json:"as_of"`
	Period      *string              `json:"period"`
	GeneratedAt time.Time            `json:"generated_at"`
	ExitCode    int                  `json:"exit_code"`
	Untrusted   bool                 `json:"untrusted"`
	Material    []string             `json:"material"`
	Collections []collectionJSON     `json:"collections"`
	Fields      fieldsJSON           `json:"fields"`
	Rules       []ruleJSON           `json:"rules"`
	Totals      map[string]totalJSON `json:"totals"`
	NotJudged   []notJudgedJSON      `json:"not_judged"`
	Unguarded   []string             `json:"unguarded_rules"`
}

// totalJSON is one currency's total of the unwaived findings: net (signed
// amounts added) and gross (absolute amounts added).
type totalJSON struct {
	Net   string `json:"net"`
	Gross string `json:"gross"`
}

// fieldsJSON are the snapshot's field notes.
type fieldsJSON struct {
	Drifted []fieldJSON `json:"drifted"`
	New     []fieldJSON `json:"new"`
	Absent  []fieldJSON `json:"absent"`
}

type fieldJSON struct {
	Table    string           `json:"table"`
	Field    string           `json:"field"`
	Column   string           `json:"column,omitempty"`
	Kind     string           `json:"kind,omitempty"`
	Contract bool             `json:"contract"`
	Types    map[string]int64 `json:"types"`
	Coerced  int64            `json:"coerced"`
	Untyped  int64            `json:"untyped"`
	Repaired int64            `json:"repaired,omitempty"` // values not valid UTF-8, repaired
	Example  string           `json:"example_id,omitempty"`
}

type notJudgedJSON struct {
	Rule    string `json:"rule"`
	Table   string `json:"table"`
	Field   string `json:"field"`
	Types   string `json:"types"`
	Records int    `json:"records"`
}

type snapshotJSON struct {
	ID       string    `json:"id"`
	Status   string    `json:"status"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
}

type collectionJSON struct {
	Table       string  `json:"table"`
	Collection  string  `json:"collection"`
	TotalCount  *int64  `json:"total_count"`
	Received    int64   `json:"records_received"`
	ParquetRows int64   `json:"parquet_rows"`
	DuckDBRows  int64   `json:"duckdb_rows"`
	IDsSHA256   string  `json:"ids_sha256"`
	Seconds     float64 `json:"seconds"`
	Complete    bool    `json:"complete"`
	Problem     string  `json:"problem,omitempty"`
}

type ruleJSON struct {
	ID        string            `json:"id"`
	Severity  string            `json:"severity"`
	Title     string            `json:"title"`
	Count     int               `json:"count"`
	New       int               `json:"new"`
	Recurring int               `json:"recurring"`
	Resolved  int               `json:"resolved"`
	Waived    int               `json:"waived"`
	NotJudged int               `json:"not_judged"`
	HeldBack  int               `json:"held_back"`
	Amounts   map[string]string `json:"unwaived_amounts"`
}

// JSONDocument writes findings.json: one document with the snapshot, its
// collections, the per-rule totals and every finding (resolved last).
func JSONDocument(w io.Writer, in *Input) error {
	r := in.Report
	doc := document{Schema: DocumentSchema, AsOf: r.AsOf.UTC(), GeneratedAt: in.Generated.UTC(), ExitCode: in.ExitCode,
		Untrusted: r.Untrusted, Material: nonNil(r.Material),
		Snapshot: snapshotJSON{ID: r.Snapshot.ID, Status: r.Snapshot.Status, Started: r.Snapshot.Started.UTC(), Finished: r.Snapshot.Finished.UTC()}}
	if r.Previous != "" {
		doc.Previous = &r.Previous
	}
	if r.Period != nil {
		p := r.Period.String()
		doc.Period = &p
	}
	for _, t := range in.Tables {
		c := collectionJSON{Table: t.Table, Collection: t.Collection, Received: t.Received, ParquetRows: t.ParquetRows,
			DuckDBRows: t.DuckDBRows, IDsSHA256: t.IDsSHA256, Seconds: t.Seconds, Complete: t.Complete, Problem: t.Problem}
		if t.TotalCount >= 0 {
			c.TotalCount = &t.TotalCount
		}
		doc.Collections = append(doc.Collections, c)
	}
	for _, t := range r.Totals() {
		rj := ruleJSON{ID: t.Rule.ID, Severity: t.Rule.Severity, Title: t.Rule.Title, Count: t.Count, New: t.New,
			Recurring: t.Recurring, Resolved: t.Resolved, Waived: t.Waived, NotJudged: t.NotJudged, HeldBack: t.HeldBack,
			Amounts: map[string]string{}}
		for c, a := range t.Amounts {
			rj.Amounts[c] = a.String()
		}
		doc.Rules = append(doc.Rules, rj)
	}
	doc.Totals = map[string]totalJSON{}
	for c, t := range r.CurrencyTotals() {
		doc.Totals[c] = totalJSON{Net: t.Net.String(), Gross: t.Gross.String()}
	}
	doc.Fields, doc.NotJudged, doc.Unguarded = fieldsDocument(in.fieldNotes()), []notJudgedJSON{}, nonNil(r.Unguarded)
	for _, u := range r.Unjudged {
		doc.NotJudged = append(doc.NotJudged, notJudgedJSON{Rule: u.Rule, Table: u.Table, Field: u.Field, Types: u.Types, Records: u.Records})
	}
	return streamDocument(w, doc, r)
}

func fieldsDocument(n manifest.FieldNotes) fieldsJSON {
	list := func(fs []manifest.FieldStats) []fieldJSON {
		out := []fieldJSON{}
		for _, f := range fs {
			fj := fieldJSON{Table: f.Table, Field: f.Field, Column: f.Column, Kind: f.Kind, Contract: f.Contract,
				Types: map[string]int64{}, Coerced: f.Coerced, Untyped: f.Untyped, Repaired: f.Repaired, Example: f.Example}
			for _, tc := range f.SeenTypes() {
				fj.Types[tc.Type] = tc.Count
			}
			out = append(out, fj)
		}
		return out
	}
	return fieldsJSON{Drifted: list(n.Drifted), New: list(n.New), Absent: list(n.Absent)}
}

// streamDocument writes doc with a "findings" array appended, one finding
// at a time.
func streamDocument(w io.Writer, doc document, r *findings.Report) error {
	var hb bytes.Buffer
	henc := json.NewEncoder(&hb)
	henc.SetEscapeHTML(false)
	henc.SetIndent("", "  ")
	if err := henc.Encode(doc); err != nil {
		return err
	}
	head := bytes.TrimSuffix(hb.Bytes(), []byte("\n"))
	ew := &errWriter{w: w}
	ew.Write(head[:len(head)-2]) // without the closing "\n}"
	io.WriteString(ew, ",\n  \"findings\": [")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, f := range r.Findings {
		buf.Reset()
		if err := enc.Encode(findingJSON(r, f)); err != nil {
			return err
		}
		if i > 0 {
			io.WriteString(ew, ",")
		}
		io.WriteString(ew, "\n    ")
		ew.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	if len(r.Findings) > 0 {
		io.WriteString(ew, "\n  ")
	}
	io.WriteString(ew, "]\n}\n")
	return ew.err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
