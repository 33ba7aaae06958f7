// Package resultset prints the rows of a query's result in one of the
// formats billsnap query offers ([Formats]): an aligned table, RFC 4180
// CSV, JSON of typed values, or a Markdown pipe table. Every value is
// printed as its DuckDB type says (decimals with all their digits, times in
// UTC, a UUID in its usual form), and cells are escaped for a terminal.
// [Print] prints a result; [NewPrinter] makes a [Printer] for rows that
// come one at a time.
package resultset

import (
	"bytes"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/usage"
)

// Formats names the formats NewPrinter knows, for a command's --help and
// the error of another.
const Formats = "table, csv, json or markdown"

// Printer prints a result's rows in one format: each row's values as
// the driver scanned them, then End, with how many rows there were.
type Printer interface {
	Row(vals []any) error
	End(total, shown int) error
}

// NewPrinter is the printer of format, having printed the header of
// cols (column names; types are DuckDB's type names, as "DATE").
func NewPrinter(w io.Writer, format string, cols, types []string) (Printer, error) {
	switch format {
	case "table":
		return newTablePrinter(w, cols, types), nil
	case "markdown":
		return newMarkdownPrinter(w, cols, types), nil
	case "csv":
		return newCSVPrinter(w, cols, types)
	case "json":
		return newJSONPrinter(w, cols, types)
	}
	return nil, usage.Errorf("--format %q: want %s", format, Formats)
}

// CheckFormat is a usage error when format is not one of Formats.
func CheckFormat(format string) error {
	_, err := NewPrinter(io.Discard, format, nil, nil)
	return err
}

// Print prints at most maxRows rows of rows in format (maxRows < 0:
// all of them) and returns how many rows there were and how many it
// printed. A table or markdown says so under the rows when some are not
// printed; a CSV or JSON holds the rows only.
func Print(w io.Writer, rows *sql.Rows, format string, maxRows int) (total, shown int, err error) {
	cols, err := rows.Columns()
	if err != nil {
		return 0, 0, err
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		return 0, 0, err
	}
	types := make([]string, len(cts))
	for i, ct := range cts {
		types[i] = ct.DatabaseTypeName()
	}
	p, err := NewPrinter(w, format, cols, types)
	if err != nil {
		return 0, 0, err
	}
	vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if total++; maxRows >= 0 && total > maxRows {
			continue
		}
		if err := rows.Scan(ptrs...); err != nil {
			return total, shown, err
		}
		if err := p.Row(vals); err != nil {
			return total, shown, err
		}
		shown++
	}
	if err := rows.Err(); err != nil {
		return total, shown, err
	}
	return total, shown, p.End(total, shown)
}

// tablePrinter aligns columns, every cell and name with its control
// characters escaped (termsafe.String).
type tablePrinter struct {
	w     io.Writer
	tw    *tabwriter.Writer
	types []string
}

func newTablePrinter(w io.Writer, cols, types []string) *tablePrinter {
	p := &tablePrinter{w: w, tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0), types: types}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = termsafe.String(c)
	}
	fmt.Fprintln(p.tw, strings.Join(names, "\t"))
	return p
}

func (p *tablePrinter) Row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = termsafe.String(cell(v, p.types[i]))
	}
	_, err := fmt.Fprintln(p.tw, strings.Join(cells, "\t"))
	return err
}

func (p *tablePrinter) End(total, shown int) error {
	if err := p.tw.Flush(); err != nil {
		return err
	}
	return printShown(p.w, total, shown)
}

// printShown says how many rows there were when not all are shown.
func printShown(w io.Writer, total, shown int) error {
	if total == shown {
		return nil
	}
	_, err := fmt.Fprintf(w, "(%s, %d shown)\n", plural.Of(total, "row"), shown)
	return err
}

// markdownPrinter prints a pipe table (GitHub's): a cell's '|' escaped,
// its line breaks as <br>, its other control characters as termsafe does.
type markdownPrinter struct {
	w     io.Writer
	types []string
}

func newMarkdownPrinter(w io.Writer, cols, types []string) *markdownPrinter {
	p := &markdownPrinter{w: w, types: types}
	if len(cols) > 0 {
		p.line(cols)
		fmt.Fprintln(w, "|"+strings.Repeat(" --- |", len(cols)))
	}
	return p
}

func (p *markdownPrinter) line(cells []string) {
	esc := make([]string, len(cells))
	for i, c := range cells {
		c = strings.ReplaceAll(strings.ReplaceAll(c, "\r\n", "\n"), "\n", "<br>")
		esc[i] = strings.ReplaceAll(termsafe.String(c), "|", `\|`)
	}
	fmt.Fprintln(p.w, "| "+strings.Join(esc, " | ")+" |")
}

func (p *markdownPrinter) Row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = cell(v, p.types[i])
	}
	p.line(cells)
	return nil
}

func (p *markdownPrinter) End(total, shown int) error {
	if total != shown {
		fmt.Fprintln(p.w)
	}
	return printShown(p.w, total, shown)
}

// csvPrinter prints RFC 4180 CSV (encoding/csv: fields quoted when they
// hold a comma, a quote or a line break; lines end in \n): a header of the
// column names, then a line per row. NULL is an empty field, a decimal has
// all its digits, a time is RFC 3339 in UTC (a DATE YYYY-MM-DD), a list,
// struct or map is JSON. Cells are the raw values: no formula guard
// (docs/store.md says why).
type csvPrinter struct {
	cw    *csv.Writer
	types []string
}

func newCSVPrinter(w io.Writer, cols, types []string) (*csvPrinter, error) {
	p := &csvPrinter{cw: csv.NewWriter(w), types: types}
	if cols == nil {
		return p, nil
	}
	return p, p.cw.Write(cols)
}

func (p *csvPrinter) Row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = rawText(v, p.types[i])
	}
	return p.cw.Write(cells)
}

func (p *csvPrinter) End(int, int) error {
	p.cw.Flush()
	return p.cw.Error()
}

// jsonPrinter prints a JSON array of an object per row, its keys the
// column names in order, one object a line. Values keep their type:
// integers and floats are numbers (a float that is not finite a string),
// booleans booleans, NULL null; a decimal is a string with all its
// digits ("12.50"), so its scale is kept and no reader rounds it; a time
// RFC 3339 in UTC, a DATE YYYY-MM-DD; a list an array; a struct or map
// an object.
type jsonPrinter struct {
	w     io.Writer
	keys  [][]byte
	types []string
	n     int
}

func newJSONPrinter(w io.Writer, cols, types []string) (*jsonPrinter, error) {
	p := &jsonPrinter{w: w, types: types}
	for _, c := range cols {
		k, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		p.keys = append(p.keys, k)
	}
	if cols == nil {
		return p, nil
	}
	_, err := io.WriteString(w, "[")
	return p, err
}

func (p *jsonPrinter) Row(vals []any) error {
	var b bytes.Buffer
	if p.n++; p.n > 1 {
		b.WriteByte(',')
	}
	b.WriteString("\n{")
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p.keys[i])
		b.WriteByte(':')
		val, err := json.Marshal(jsonValue(v, p.types[i]))
		if err != nil {
			return fmt.Errorf("column %s: %w", p.keys[i], err)
		}
		b.Write(val)
	}
	b.WriteByte('}')
	_, err := p.w.Write(b.Bytes())
	return err
}

func (p *jsonPrinter) End(int, int) error {
	_, err := io.WriteString(p.w, "\n]\n")
	return err
}

// cell prints a value of a column of type typ for a table: decimals with
// all their digits, times in UTC, JSON as JSON, NULL as NULL.
func cell(v any, typ string) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05Z07:00")
	}
	return rawText(v, typ)
}

// rawText is a value of a column of type typ as text for CSV: NULL is
// empty, a decimal has all its digits, a time is RFC 3339 in UTC (of a
// DATE column, YYYY-MM-DD), a UUID as 8-4-4-4-12 hex digits, lists,
// structs and maps are JSON.
func rawText(v any, typ string) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []byte:
		return bytesText(x, typ)
	case duckdb.Decimal:
		return fixedDecimal(x.Value, int(x.Scale))
	case time.Time:
		return timeText(x, typ)
	case *big.Int:
		return x.String()
	case duckdb.UUID:
		return x.String()
	case map[string]any, []any, duckdb.Map:
		b, _ := json.Marshal(jsonValue(x, ""))
		return string(b)
	}
	return fmt.Sprint(v)
}

// bytesText is b as text: a UUID (the driver gives its 16 bytes) in its
// usual form, other bytes as they are.
func bytesText(b []byte, typ string) string {
	if typ == "UUID" && len(b) == 16 {
		u := duckdb.UUID(b)
		return u.String()
	}
	return string(b)
}

// timeText is t in RFC 3339, UTC, or YYYY-MM-DD for a DATE.
func timeText(t time.Time, typ string) string {
	if typ == "DATE" {
		return t.Format(time.DateOnly)
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// jsonValue is v as json.Marshal is to write it (jsonPrinter's types).
func jsonValue(v any, typ string) any {
	switch x := v.(type) {
	case duckdb.Decimal:
		return fixedDecimal(x.Value, int(x.Scale))
	case time.Time:
		return timeText(x, typ)
	case *big.Int:
		return json.Number(x.String())
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Sprint(x)
		}
	case []byte:
		return bytesText(x, typ)
	case duckdb.UUID:
		return x.String()
	case duckdb.Interval:
		return map[string]any{"months": x.Months, "days": x.Days, "micros": x.Micros}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e, "")
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e, "")
		}
		return out
	case duckdb.Map:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[rawText(k, "")] = jsonValue(e, "")
		}
		return out
	}
	return v
}

// fixedDecimal writes v / 10^scale with exactly scale decimals.
func fixedDecimal(v *big.Int, scale int) string {
	s := new(big.Int).Abs(v).String()
	if len(s) <= scale {
		s = strings.Repeat("0", scale-len(s)+1) + s
	}
	if scale > 0 {
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}
