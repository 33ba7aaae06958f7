// Package hostile serves tests a hostile billing service: a proxy in front
// of a sandbox that passes every request on and mutates the lists the
// sandbox answers, as a broken or malicious service would. It plants text
// that is not valid UTF-8 in customers' names, values that begin like a
// spreadsheet formula where billsnap writes them into CSV (invoice lines
// whose IDs end in findings, customers' names), and a value nested
// thousands of levels deep in an assumed field.
package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
)

// BadBytes is what InvalidUTF8 appends to a name: FF and FE are never
// UTF-8, C3 starts a sequence that "(" does not continue (issue 45).
const BadBytes = "\xff\xfe\xc3("

// LoneSurrogate is the JSON escape InvalidUTF8 puts before BadBytes in a
// company name: half a surrogate pair, valid JSON grammar but no
// character, which DuckDB refuses in a JSON value.
const LoneSurrogate = `\ud800`

// Formulas are the formula-looking beginnings Formulas plants, in turn:
// each would run, or be read as a formula, in a spreadsheet that opens a
// CSV cell beginning with it.
func Formulas() []string {
	return []string{`=HYPERLINK("http://x")`, `=cmd|' /C calc'!A0`, `@SUM(1)`, `+SUM(1)`, `-2+3`, "\t", "\r"}
}

// Attacks say what the proxy plants.
type Attacks struct {
	// InvalidUTF8 appends BadBytes to every customer's FullName, and
	// LoneSurrogate and BadBytes to its CompanyName (assumed fields).
	InvalidUTF8 bool
	// Formulas starts with one of Formulas, in turn, the ID and Text of
	// every invoice line that is a planted finding of the sandbox's
	// (sandbox.Dataset.Expected), and every customer's FullName. The ID
	// keeps the line's own after it, so that IDs stay distinct.
	Formulas bool
	// Depth, when above 0, makes the Email (an assumed string) of the
	// first customer of every page an array nested Depth levels deep.
	Depth int
	// Member adds a top-level member, its name and value as given, to
	// the customer of ID Member.ID (none when ID is ""): a field the spec
	// does not know, whose name may hold any character.
	Member struct{ ID, Name, Value string }
	// Number makes the field Number.Field of the record of ID Number.ID,
	// in any list, the JSON number Number.Value, as it is (none when ID is
	// ""): a million digits for an invoice's TotalAmount or a charge's
	// Amount (a spec field), say.
	Number struct{ ID, Field, Value string }
	// Refusal, when not "", answers every page of /Invoices/ with 400 and
	// an error body of spec §7 whose Message is Refusal: a service that
	// echoes a megabyte into its error, say.
	Refusal string
}

// Server is the hostile service: its URL serves as both base_url and
// front_url, and accepts the sandbox's key.
type Server struct {
	URL string
	// Lines maps the ID of each invoice line Formulas changed to the ID
	// the proxy sends instead.
	Lines map[string]string
}

// BaseURL is {base_url}.
func (s *Server) BaseURL() string { return s.URL }

// FrontURL is {front_url}.
func (s *Server) FrontURL() string { return s.URL }

// Start serves the hostile service in front of sb on a loopback port
// until the test ends.
func Start(t testing.TB, sb *sandbox.Server, a Attacks) *Server {
	t.Helper()
	target, err := url.Parse(sb.URL)
	if err != nil {
		t.Fatal(err)
	}
	m := &mutator{a: a, lines: plantedLines(sb.Dataset(), a.Formulas)}
	proxy := httputil.NewSingleHostReverseProxy(target)
	direct := proxy.Director
	proxy.Director = func(r *http.Request) {
		direct(r)
		r.Header.Del("Accept-Encoding") // bodies come plain, to be rewritten
	}
	proxy.ModifyResponse = m.response
	var h http.Handler = proxy
	if a.Refusal != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/Invoices/") {
				proxy.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"Type": "Error", "Errorcode": 16001001, "Httpstatuscode": 400, "Message": a.Refusal})
		})
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &Server{URL: srv.URL, Lines: m.lines}
}

// plantedLines maps each invoice line of a planted finding to its hostile
// ID, when formulas are planted.
func plantedLines(d *sandbox.Dataset, formulas bool) map[string]string {
	out := map[string]string{}
	if !formulas {
		return out
	}
	fs := Formulas()
	for _, f := range d.Expected {
		if _, ok := out[f.EntityID]; f.Entity == "invoice_line" && !ok {
			out[f.EntityID] = fs[len(out)%len(fs)] + f.EntityID
		}
	}
	return out
}

// mutator rewrites the lists' pages.
type mutator struct {
	a     Attacks
	lines map[string]string
}

// Markers stand in the re-encoded JSON for what encoding/json cannot
// write: raw bytes that are not UTF-8, and a value deeper than it nests.
const (
	bytesMarker     = "@@hostile-bytes@@"
	surrogateMarker = "@@hostile-surrogate@@"
	deepMarker      = `"@@hostile-deep@@"`
)

// response rewrites a 200 page of /Customers/ or /Invoices/, or of any
// list when a Number is planted.
func (m *mutator) response(resp *http.Response) error {
	path := resp.Request.URL.Path
	customers, invoices := strings.HasPrefix(path, "/Customers/"), strings.HasPrefix(path, "/Invoices/")
	invoices = invoices && len(m.lines) > 0 // else its re-encoding alone would change them (its keys sorted)
	if resp.StatusCode != http.StatusOK || !customers && !invoices && m.a.Number.ID == "" {
		return nil
	}
	invoices = strings.HasPrefix(path, "/Invoices/")
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if out, err := m.rewrite(body, customers, invoices); err == nil {
		body = out
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

// rewrite mutates a page's items; a body that is not a page is left as
// it came (an error).
func (m *mutator) rewrite(body []byte, customers, invoices bool) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var page map[string]any
	if err := dec.Decode(&page); err != nil {
		return nil, err
	}
	items, ok := page["Items"].([]any)
	if !ok {
		return nil, fmt.Errorf("no Items")
	}
	for i, it := range items {
		rec, ok := it.(map[string]any)
		if !ok {
			continue
		}
		if id, _ := rec["ID"].(string); m.a.Number.ID != "" && id == m.a.Number.ID {
			rec[m.a.Number.Field] = json.Number(m.a.Number.Value)
		}
		switch {
		case customers:
			m.customer(rec, i)
		case invoices:
			m.invoice(rec)
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(page); err != nil {
		return nil, err
	}
	b := bytes.ReplaceAll(out.Bytes(), []byte(bytesMarker), []byte(BadBytes))
	b = bytes.ReplaceAll(b, []byte(surrogateMarker), []byte(LoneSurrogate))
	deep := strings.Repeat("[", m.a.Depth) + strings.Repeat("]", m.a.Depth)
	return bytes.ReplaceAll(b, []byte(deepMarker), []byte(deep)), nil
}

// customer plants in the i-th customer of a page.
func (m *mutator) customer(rec map[string]any, i int) {
	name, _ := rec["FullName"].(string)
	if m.a.Formulas {
		fs := Formulas()
		name = fs[i%len(fs)] + name
	}
	if m.a.InvalidUTF8 {
		company, _ := rec["CompanyName"].(string)
		name, rec["CompanyName"] = name+" "+bytesMarker, company+" "+surrogateMarker+bytesMarker
	}
	rec["FullName"] = name
	if m.a.Depth > 0 && i == 0 {
		rec["Email"] = strings.Trim(deepMarker, `"`)
	}
	if id, _ := rec["ID"].(string); m.a.Member.ID != "" && id == m.a.Member.ID {
		rec[m.a.Member.Name] = m.a.Member.Value
	}
}

// invoice plants in the lines of an invoice that are planted findings.
func (m *mutator) invoice(rec map[string]any) {
	lines, _ := rec["InvoiceLines"].([]any)
	for _, l := range lines {
		line, ok := l.(map[string]any)
		if !ok {
			continue
		}
		id, _ := line["ID"].(string)
		if hostile, ok := m.lines[id]; ok {
			line["ID"] = hostile
			text, _ := line["Text"].(string)
			line["Text"] = strings.TrimSuffix(hostile, id) + text
		}
	}
}
