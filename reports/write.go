package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/internal/atomicfile"
)

// reportFiles are the report files, by format name.
var reportFiles = []struct{ Name, File string }{
	{"md", "summary.md"}, {"html", "report.html"}, {"xlsx", "findings.xlsx"}, {"csv", "findings.csv"}, {"json", "findings.json"},
}

// ParseFormats reads a comma-separated subset of md, html, xlsx, csv, json.
func ParseFormats(s string) ([]string, error) {
	var out []string
	for name := range strings.SplitSeq(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.ContainsFunc(reportFiles, func(f struct{ Name, File string }) bool { return f.Name == name }) {
			return nil, fmt.Errorf("report format %q: want md, html, xlsx, csv or json", name)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// Dir is where the reports of a reconciliation go: DIR/reports/<snapshot
// id>/, in period=YYYY-MM/ below it for a period.
func Dir(root string, in *Input) string {
	dir := filepath.Join(root, in.Report.Snapshot.ID)
	if in.Report.Period != nil {
		dir = filepath.Join(dir, "period="+in.Report.Period.String())
	}
	return dir
}

// Write writes the files of formats into dir and returns their paths. Each
// file is written whole to a temporary name and then renamed, so a reader
// never sees half a report.
func Write(dir string, in *Input, formats []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range reportFiles {
		if !slices.Contains(formats, f.Name) {
			continue
		}
		path := filepath.Join(dir, f.File)
		paths = append(paths, path)
		if err := atomicfile.WriteFunc(path, func(w io.Writer) error { return render(f.Name, w, in) }); err != nil {
			return nil, fmt.Errorf("report %s: %w", path, err)
		}
	}
	return paths, nil
}

func render(format string, w io.Writer, in *Input) error {
	switch format {
	case "md":
		return Markdown(w, in, nil)
	case "html":
		return HTML(w, in)
	case "xlsx":
		return XLSX(w, in)
	case "csv":
		return CSV(w, in.Report, in.Work)
	}
	return JSONDocument(w, in)
}
