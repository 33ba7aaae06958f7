package fix

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ReadAmounts takes a header and a GUID and a whole quantity of 0 or more
// a line, each reference once, and names the line of anything else.
func TestReadAmounts(t *testing.T) {
	const ref = "0A1B2C3D-0000-4000-8000-000000000001"
	for _, c := range []struct{ body, err string }{
		{"reference_id,amount\n" + ref + ",0\n00000000-0000-4000-8000-000000000002, 12\n", ""},
		{"ref,qty\n", "line 1: want the header reference_id,amount"},
		{"reference_id,amount\nnot-a-guid,1\n", `line 2: reference_id "not-a-guid" is not a GUID`},
		{"reference_id,amount\n" + ref + ",1.5\n", `line 2: amount "1.5": want a whole number`},
		{"reference_id,amount\n" + ref + ",-1\n", `line 2: amount "-1": want a whole number`},
		{"reference_id,amount\n" + ref + ",1\n" + strings.ToLower(ref) + ",2\n", "line 3: reference " + strings.ToLower(ref) + " is given twice"},
		{"reference_id,amount\n" + ref + ",1,2\n", "line 2: "},
	} {
		path := filepath.Join(t.TempDir(), "amounts.csv")
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadAmounts(path)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.body, err)
		case c.err == "" && !slices.Equal(got, []Amount{{strings.ToLower(ref), 0}, {"00000000-0000-4000-8000-000000000002", 12}}):
			t.Errorf("%q: %+v", c.body, got)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), "--amounts "+path+" "+c.err)):
			t.Errorf("%q: error %v, want %q", c.body, err, c.err)
		}
	}
}
