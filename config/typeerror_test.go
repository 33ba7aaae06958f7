package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A value of the wrong type is one line in plain words, for every kind of
// typed key: the key's full path, what it wants, what it got; never
// yaml.v3's "cannot unmarshal !!int".
func TestTypeErrorsInPlainWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ yaml, want string }{
		{"timeout: 5", "line 1: timeout: want a duration such as 30s, got the number 5"},
		{"reconcile:\n  grace: true", "line 2: reconcile.grace: want a duration such as 30s, got true"},
		{"concurrency: many", `line 1: concurrency: want a whole number such as 8, got "many"`},
		{"allow_insecure_http: 3", "line 1: allow_insecure_http: want true or false, got the number 3"},
		{"reports:\n  formats: csv", `line 2: reports.formats: want a list (lines beginning with -, or [a, b]), got "csv"`},
		{"reports:\n  max_rows: [1, 2]", "line 2: reports.max_rows: want a whole number such as 8, got a list"},
		{"workspace:\n  identity: [a, b]", "line 2: workspace.identity: want one value (text), got a list"},
		{"base_url:\n  a: b", "line 2: base_url: want one value (text), got a mapping"},
		{"retention: 4", "line 1: retention: want a section (key: value lines), got the number 4"},
		{"schedules:\n  - name: [x]", "line 2: schedules[0].name: want one value (text), got a list"},
	} {
		path := filepath.Join(t.TempDir(), "billsnap.yml")
		if err := os.WriteFile(path, []byte(c.yaml+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, func(string) string { return "" })
		want := "config file " + path + ": " + c.want
		if err == nil || err.Error() != want || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q:\n got  %v\n want %s", c.yaml, err, want)
		}
	}
}
