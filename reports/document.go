package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/billsnap/billsnap/reconcile"
)

// DocumentSchema names the shape of the JSON document (README, "findings.json").
const DocumentSchema = "billsnap.findings/v1"

// document is findings.json without its findings, which are streamed.
type document struct {
	Schema      string           `json:"schema"`
	Snapshot    snapshotJSON     `json:"snapshot"`
	Previous    *string          `json:"previous_snapshot"`
	AsOf        time.Time        `json:"as_of"`
	Period      *string          `json:"period"`
	GeneratedAt time.Time        `json:"generated_at"`
	ExitCode    int              `json:"exit_code"`
	Untrusted   bool             `json:"untrusted"`
	Material    []string         `json:"material"`
	Collections []collectionJSON `json:"collections"`
	Rules       []ruleJSON       `json:"rules"`
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
			Recurring: t.Recurring, Resolved: t.Resolved, Waived: t.Waived, Amounts: map[string]string{}}
		for c, a := range t.Amounts {
			rj.Amounts[c] = a.String()
		}
		doc.Rules = append(doc.Rules, rj)
	}
	return streamDocument(w, doc, r)
}

// streamDocument writes doc with a "findings" array appended, one finding
// at a time.
func streamDocument(w io.Writer, doc document, r *reconcile.Report) error {
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
