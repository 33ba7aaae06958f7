//go:build lake && heavy && !race

// The relative lake is checked through its Iceberg tables, read with
// lake_test.go's helpers, which only the heavy tier without -race has.

package lake

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A relative file:// lake in the configuration is relative to the
// configuration file's folder, in each way it is written: the export
// publishes a complete lake there, its manifest and its Iceberg tables.
func TestARelativeFileLakeIsBesideTheConfig(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 88, Customers: 20}, "")
	for _, raw := range []string{"file://lake", "file://./lake", "file:lake"} {
		folder := t.TempDir()
		conf := filepath.Join(folder, "billsnap.yml")
		if err := os.WriteFile(conf, []byte("parquet: {url: \""+raw+"\"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(folder, "out")
		if code, _, stderr := e2etest.CLI(t, srv, "export", "--out", out, "--config", conf, "--progress", "none"); code != job.ExitOK {
			t.Fatalf("%s: export exit %d: %s", raw, code, stderr)
		}
		url := "file://" + filepath.Join(folder, "lake")
		l, err := objects.Open(context.Background(), url, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := l.Manifests(context.Background())
		l.Close()
		if err != nil || len(ms) != 1 {
			t.Fatalf("%s: %d manifests beside the config, %v", raw, len(ms), err)
		}
		tables := icebergTables(t, url, out)
		if len(tables) == 0 {
			t.Fatalf("%s: no Iceberg tables", raw)
		}
		for _, tbl := range tables {
			if tbl.CurrentSnapshot() == nil {
				t.Errorf("%s: Iceberg table %v holds no snapshot", raw, tbl.Identifier())
			}
		}
	}
}
