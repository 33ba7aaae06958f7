package resultset_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/billsnap/billsnap/cmd/internal/resultset"
	"github.com/billsnap/billsnap/usage"
)

// Each format prints a header and rows as documented, and says under a
// table or Markdown how many rows there were when not all are shown; a
// format not in Formats is a usage error.
func TestFormats(t *testing.T) {
	for format, want := range map[string]string{
		"table":    "a  b\n1  NULL\n(3 rows, 1 shown)\n",
		"markdown": "| a | b |\n| --- | --- |\n| 1 | NULL |\n\n(3 rows, 1 shown)\n",
		"csv":      "a,b\n1,\n",
		"json":     "[\n{\"a\":1,\"b\":null}\n]\n",
	} {
		var b bytes.Buffer
		p, err := resultset.NewPrinter(&b, format, []string{"a", "b"}, []string{"INTEGER", "VARCHAR"})
		if err == nil {
			err = p.Row([]any{int32(1), nil})
		}
		if err == nil {
			err = p.End(3, 1)
		}
		if err != nil || b.String() != want {
			t.Errorf("%s: %v\n%q\nwant\n%q", format, err, b.String(), want)
		}
	}
	if err := resultset.CheckFormat("xml"); !errors.As(err, new(usage.Error)) {
		t.Errorf("xml: %v, want a usage error", err)
	}
}
