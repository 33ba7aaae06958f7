package cli

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/manifest"
	"github.com/billsnap/billsnap/recheck"
	"github.com/billsnap/billsnap/snapshot"
)

// billsnap query prints what the data holds with the terminal's control
// characters escaped: ESC, BEL, C1 CSI, TAB and LF in a cell or a column
// name come out as \x1b, \x07, \u009b, \t and \n, and the table keeps one
// line per row.
func TestQueryEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	cfg := emptyStore(t)
	q := `SELECT chr(27) || '[2J' || chr(27) || ']0;owned' || chr(7) AS "a` + "\x1b" + `b", 'x' || chr(9) || 'y' || chr(10) || chr(155) || '31m' AS c`
	var out, errb bytes.Buffer
	code := runWith(context.Background(), []string{"query", "--out", cfg.Out, q}, &out, &errb, noEnv)
	want := `a\x1bb` + "                   c\n" + `\x1b[2J\x1b]0;owned\x07  x\ty\n\u009b31m` + "\n"
	if code != job.ExitOK || out.String() != want {
		t.Fatalf("exit %d\nstdout %q\nwant   %q\nstderr %q", code, out.String(), want, errb.String())
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\t") {
		t.Errorf("a control character is printed raw: %q", out.String())
	}
}

// A config file that group or others can write is refused by every
// command that reads it, check-config included: exit 2, one line naming
// the file and its mode.
func TestWritableConfigIsExit2(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "billsnap.yml")
	if err := os.WriteFile(path, []byte("out: "+t.TempDir()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check-config"}, {"status"}, {"query", "SELECT 1"}, {"report"}, {"export"}} {
		var out, errb bytes.Buffer
		code := runWith(context.Background(), append(args, "--config", path), &out, &errb, keyEnv("a-long-enough-key"))
		want := "billsnap " + args[0] + ": config file " + path + ": mode 0666 lets group or others write it; chmod go-w " + path + "\n"
		if code != job.ExitUsage || out.Len() != 0 || errb.String() != want {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q\nwant   %q", args, code, out.String(), errb.String(), want)
		}
	}
}

// keyEnv is an environment that holds only the API key.
func keyEnv(key string) func(string) string {
	return func(k string) string {
		if k == config.EnvAPIKey {
			return key
		}
		return ""
	}
}

// The API key pasted into front_url, base_url or a collection's path, as
// it is or escaped, never reaches the output of check-config or of
// another command, whether the configuration is accepted or refused.
func TestPastedKeyIsRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk_live+Secret/Key=42"
	escaped := url.PathEscape(key)
	for name, yml := range map[string]string{
		"front_url":             "front_url: https://billing.example/p/" + key + "/\nbase_url: https://billing.example\n",
		"front_url escaped":     "front_url: https://billing.example/p/" + escaped + "/\nbase_url: https://billing.example\n",
		"front_url refused":     "front_url: ftp://billing.example/" + key + "/\nbase_url: https://billing.example\n",
		"base_url refused":      "base_url: \"https://billing.example/" + key + " x\"\nfront_url: https://billing.example\n",
		"collection":            "front_url: https://billing.example\nbase_url: https://billing.example\ncollections: {customers: /v2/" + escaped + "/Customers/}\n",
		"collection refused":    "front_url: https://billing.example\nbase_url: https://billing.example\ncollections: {customers: \"v2/" + key + "?x\"}\n",
		"out refused":           "front_url: https://billing.example\nbase_url: https://billing.example\nreports: {dir: ../" + key + "}\n",
		"wrong type with value": "concurrency: " + key + "\n",
	} {
		path := filepath.Join(t.TempDir(), "billsnap.yml")
		if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"check-config", "--offline"}, {"status"}} {
			var out, errb bytes.Buffer
			runWith(context.Background(), append(args, "--config", path), &out, &errb, keyEnv(key))
			for _, form := range []string{key, escaped, "Secret"} {
				if strings.Contains(out.String()+errb.String(), form) {
					t.Errorf("%s: %s prints the key (%q):\nstdout %q\nstderr %q", name, args[0], form, out.String(), errb.String())
				}
			}
		}
	}
}

// billsnap status prints a run's error and a notification's error, which
// may quote the service, with their control characters escaped.
func TestStatusEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	const hostile = "HTTP 400: \x1b]0;owned\x07\x1b[2J\u009b31m"
	e, err := journal.New(layout.Dir(out).Runs(), time.Now).Start(journal.Run{Job: "export"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Finish(journal.End{Status: "failed", ExitCode: 1, Error: hostile}); err != nil {
		t.Fatal(err)
	}
	err = journal.DeliveriesIn(layout.Dir(out).Notifications()).Add(journal.Delivery{Time: time.Now(), Target: "ops", Event: "failure",
		Result: journal.DeliveryFailed, Error: hostile})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, errb bytes.Buffer
	code := runWith(context.Background(), []string{"status", "--out", out}, &stdout, &errb, noEnv)
	if code != job.ExitOK || strings.ContainsAny(stdout.String(), "\x1b\x07\u009b") ||
		strings.Count(stdout.String(), `HTTP 400: \x1b]0;owned\x07\x1b[2J\u009b31m`) != 2 {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, stdout.String(), errb.String())
	}
}

// emptyStore is the configuration of a new store holding no snapshot,
// its empty read model published (opening a store publishes nothing).
func emptyStore(t *testing.T) config.Config {
	t.Helper()
	cfg, store := openedStore(t)
	defer store.Close()
	if err := store.UpdateAndPublish(context.Background(), func(*snapshot.Section) error { return nil }); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The error a command ends on is printed with its control characters
// escaped: here DuckDB's, quoting a column name that holds ESC.
func TestErrorLineEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	cfg := emptyStore(t)
	var out, errb bytes.Buffer
	code := runWith(context.Background(), []string{"query", "--out", cfg.Out, "SELECT \"\x1b]0;owned\x07\""}, &out, &errb, noEnv)
	if code != job.ExitUsage || strings.ContainsAny(errb.String(), "\x1b\x07") || !strings.Contains(errb.String(), `\x1b]0;owned\x07`) {
		t.Errorf("exit %d\nstderr %q", code, errb.String())
	}
}

// recheck's table and the export's field notes print what the service
// sent (a record's ID, what changed, a field's name) with its control
// characters escaped.
func TestRecheckAndFieldNotesEscapeControlCharacters(t *testing.T) {
	t.Parallel()
	const hostile = "\x1b]0;owned\x07\u009b31m"
	var b bytes.Buffer
	printRecheck(&b, &findings.Report{}, []recheck.Result{{Finding: findings.Finding{Rule: "missed_billing_run", EntityID: hostile},
		Live: recheck.Changed, Detail: "Amount " + hostile}})
	printFieldNotes(&b, manifest.FieldNotes{New: []manifest.FieldStats{{Table: "customers", Field: hostile, Kind: "string"}}})
	if strings.ContainsAny(b.String(), "\x1b\x07\u009b") || strings.Count(b.String(), `\x1b]0;owned\x07\u009b31m`) != 3 {
		t.Errorf("%q", b.String())
	}
}
