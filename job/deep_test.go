package job

import (
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/hostile"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A value nested a million levels deep (the Email of the first customer
// of each of three pages, from a hostile service over HTTP) never reaches
// a JSON parser as JSON: each export, the second one's history step
// included, completes; the three records' _raw is a JSON string of their
// text, the others' their object; the log counts them. (Before, gjson's
// recursive check of each page took 8-10 s an export and the test's
// process 679 MB.)
func TestAValueNestedAMillionLevelsIsKeptAsText(t *testing.T) {
	dir := t.TempDir()
	sb := sandboxtest.Start(t, sandbox.Options{Seed: 4, Customers: 250}, "")
	hs := hostile.Start(t, sb, hostile.Attacks{Depth: 1_000_000})
	for range 2 {
		cfg := config.Default()
		cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = hs.BaseURL(), hs.FrontURL(), dir, "none"
		var logged syncbuf.Buffer
		log := slog.New(slog.NewTextHandler(&logged, nil))
		svc := Service{Secret: extract.NewSecret(sandboxtest.Key), Log: log, Clock: fakeclock.New(time.Now())}
		_, err := exportInStore(cfg, svc)
		want := `msg="field nested deeper than 1000 levels: its records' _raw kept as text (a JSON string)" table=customers field=Email column=email records=3`
		if err != nil || !strings.Contains(logged.String(), want) {
			t.Fatalf("export: %v; want the log to say %q:\n%.3000s", err, want, logged.String())
		}
	}
	db, err := sql.Open("duckdb", filepath.Join(dir, "billsnap.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var text, objects int
	q := `SELECT count(*) FILTER (json_type(_raw) = 'VARCHAR' AND starts_with(_raw ->> '$', '{"') AND contains(_raw ->> '$', '[[[[')),
		count(*) FILTER (json_type(_raw) = 'OBJECT') FROM customers WHERE snapshot_id = (SELECT id FROM latest_snapshot)`
	if err := db.QueryRow(q).Scan(&text, &objects); err != nil || text != 3 || objects != 247 {
		t.Errorf("_raw: %d records as text, %d as objects, %v; want 3 and 247", text, objects, err)
	}
}
