//go:build lake && heavy

package lake

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake/laketest"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

// billsnap links no lake: an export with parquet.url runs billsnap-lake,
// found beside it, which publishes the snapshot (and billsnap version
// names it). Without the lake's program the export is a usage error
// before anything is walked, naming the line that installs it.
func TestTheLakeIsAProgramOfItsOwn(t *testing.T) {
	built := e2etest.BinaryWithTags(t, "crashpoints")
	e2etest.LakeBinaryBeside(t, built, "crashpoints")
	dir := t.TempDir() // the two programs, and nothing else on the way
	for _, name := range []string{"billsnap", lakeprogram.Name} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(built), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "billsnap")
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 84, Customers: 10}, "")
	url, out := laketest.Start(t, "billing"), filepath.Join(t.TempDir(), "store")
	export := func() (int, string) {
		cmd := e2etest.ChildExport(bin, srv, out, "PATH=/usr/bin:/bin")
		cmd.Args = append(cmd.Args, "--parquet-url", url)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), stderr.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	}
	if code, stderr := export(); code != job.ExitOK {
		t.Fatalf("export through %s: exit %d %s", lakeprogram.Name, code, stderr)
	}
	l, err := objects.Open(context.Background(), url, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if ms, err := l.Manifests(context.Background()); err != nil || len(ms) != 1 {
		t.Fatalf("the lake after the export: %d manifests (%v), want 1", len(ms), err)
	}
	if v, err := exec.Command(bin, "version").Output(); err != nil || !strings.Contains(string(v), "lake      billsnap-lake ") {
		t.Errorf("billsnap version: %v\n%s", err, v)
	}
	if err := os.Remove(filepath.Join(dir, lakeprogram.Name)); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "store")
	code, stderr := export()
	if code != job.ExitUsage || !strings.Contains(stderr, "go install -tags lake ./cmd/"+lakeprogram.Name) {
		t.Errorf("export without %s: exit %d %s", lakeprogram.Name, code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("export without %s created %s (%v)", lakeprogram.Name, out, err)
	}
}
