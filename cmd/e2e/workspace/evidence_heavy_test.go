//go:build heavy

package workspace

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
)

// billsnap evidence packs a closed period and evidence verify passes it;
// one byte changed in any file of the pack, any line of the store's
// ledger, or a Parquet file of the store is exit 1, naming it.
func TestAnEvidencePackShowsAnyChange(t *testing.T) {
	t.Parallel()
	srv, dir, cfg, period := closedStore(t)
	pack := filepath.Join(t.TempDir(), "pack.zip")
	code, out, stderr := e2etest.CLI(t, srv, "evidence", "--config", cfg, "--period", period, "-o", pack)
	if code != job.ExitOK || !strings.Contains(out, "closed in C") {
		t.Fatalf("evidence: exit %d: %s %s", code, out, stderr)
	}
	code, out, stderr = e2etest.CLI(t, srv, "evidence", "verify", pack, "--config", cfg)
	if code != job.ExitOK || !strings.Contains(out, "intact") || !strings.Contains(out, "the store "+dir+" agrees") || strings.Contains(out, "not tied") {
		t.Fatalf("evidence verify: exit %d: %s %s", code, out, stderr)
	}
	code, out, stderr = e2etest.CLI(t, srv, "evidence", "verify", pack)
	if code != job.ExitOK || strings.Contains(out, "not tied") {
		t.Fatalf("evidence verify without the store (the close recorded the snapshot's files): exit %d: %s %s", code, out, stderr)
	}
	if code, _, stderr := e2etest.CLI(t, srv, "evidence", "verify", pack, "--timeout", "0s"); code != job.ExitUsage || !strings.Contains(stderr, "--timeout") {
		t.Fatalf("evidence verify --timeout 0s: exit %d: %s", code, stderr)
	}
	stopped, stop := context.WithCancel(context.Background())
	stop() // as SIGINT or SIGTERM does, through main's signal context
	var errb bytes.Buffer
	if code := cli.Run(stopped, []string{"evidence", "verify", pack}, io.Discard, &errb, cli.Options{}); code != job.ExitInterrupted {
		t.Fatalf("evidence verify, interrupted: exit %d: %s", code, errb.String())
	}
	forged := filepath.Join(t.TempDir(), "forged.zip")
	for _, p := range []string{"data/snapshot/tables.json", "data/snapshot/parquet-manifest.csv"} {
		rebag(t, pack, forged, p, func(b []byte) []byte { return append(b, ' ') })
		code, _, stderr := e2etest.CLI(t, srv, "evidence", "verify", forged)
		if code != job.ExitFailure || !strings.Contains(stderr, p+": its SHA-256 is") || !strings.Contains(stderr, "it was rewritten") {
			t.Fatalf("%s rewritten, the bag's manifests recomputed: exit %d: %s", p, code, stderr)
		}
	}
	if code, _, stderr := e2etest.CLI(t, srv, "evidence", "--config", cfg, "--period", "2001-01", "-o", pack+".x"); code != job.ExitUsage || !strings.Contains(stderr, "not closed") {
		t.Fatalf("evidence of a period not closed: exit %d: %s", code, stderr)
	}

	zr, err := zip.OpenReader(pack)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if strings.HasSuffix(f.Name, "data/ledger/period.jsonl") {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			if !bytes.Contains(b, []byte(`"action":"explain"`)) {
				t.Errorf("the period's ledger lines hold no explanation of its flux review:\n%s", b)
			}
		}
	}
	zr.Close()
	kinds := strings.Join(names, " ")
	for _, want := range []string{"findings.csv", "findings.json", "report.html", "findings.xlsx", "parquet-manifest.csv", "ledger.jsonl",
		"signoffs.json", "waivers.json", "rules/", "manifest-sha256.txt", "bag-info.txt"} {
		if !strings.Contains(kinds, want) {
			t.Fatalf("the pack has no %s: %s", want, kinds)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.zip")
	for _, name := range names {
		rezip(t, pack, bad, name, flipByte)
		code, _, stderr := e2etest.CLI(t, srv, "evidence", "verify", bad)
		inBag := name[strings.Index(name, "/")+1:]
		if code != job.ExitFailure || !strings.Contains(stderr, inBag) {
			t.Errorf("%s changed: exit %d: %s", inBag, code, stderr)
		}
	}

	ledgerPath := layout.Dir(dir).Ledger()
	orig, _ := os.ReadFile(ledgerPath)
	lines := bytes.SplitAfter(bytes.TrimSuffix(orig, []byte{'\n'}), []byte{'\n'})
	for i := range lines {
		edited := bytes.Join(append(append(append([][]byte{}, lines[:i]...), bytes.Replace(lines[i], []byte(`"by":"dana"`), []byte(`"by":"dann"`), 1)), lines[i+1:]...), nil)
		os.WriteFile(ledgerPath, append(bytes.TrimSuffix(edited, []byte{'\n'}), '\n'), 0o644)
		code, _, stderr := e2etest.CLI(t, srv, "evidence", "verify", pack, "--config", cfg)
		if want := "line " + strconv.Itoa(i+1) + " "; code != job.ExitFailure || !strings.Contains(stderr, want) {
			t.Errorf("the store's ledger line %d changed: exit %d: %s", i+1, code, stderr)
		}
	}
	os.WriteFile(ledgerPath, orig, 0o644)

	files, _ := filepath.Glob(filepath.Join(dir, "parquet", "invoices", "*", "*.parquet"))
	if len(files) == 0 {
		t.Fatal("no Parquet of invoices in the store")
	}
	pq, _ := os.ReadFile(files[0])
	os.WriteFile(files[0], flipByte(pq), 0o644)
	code, _, stderr = e2etest.CLI(t, srv, "evidence", "verify", pack, "--config", cfg)
	if rel, _ := filepath.Rel(dir, files[0]); code != job.ExitFailure || !strings.Contains(stderr, filepath.ToSlash(rel)) {
		t.Errorf("a Parquet file of the store changed: exit %d: %s", code, stderr)
	}
}
