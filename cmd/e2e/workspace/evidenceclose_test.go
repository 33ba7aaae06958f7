package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
)

// billsnap evidence --close writes the pack of a close reopened since,
// and evidence verify passes it against the store; --period of that
// period names the close; an unknown close, or one of another period, is
// exit 2 in one line. The store is the shared export with its ledger
// written directly: closed (a closed record of one file), reopened,
// closed again on the same record, reopened again.
func TestEvidenceOfAnEarlierClose(t *testing.T) {
	t.Parallel()
	srv, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	snaps, _ := filepath.Glob(filepath.Join(dir, "parquet", "invoices", "snapshot_id=*"))
	if len(snaps) != 1 {
		t.Fatalf("the shared export holds %d snapshots of invoices", len(snaps))
	}
	snap := strings.TrimPrefix(filepath.Base(snaps[0]), "snapshot_id=")
	const period = "2026-10"
	rec := filepath.Join(layout.Dir(dir).Closes(), period, "r", "findings.csv")
	os.MkdirAll(filepath.Dir(rec), 0o755)
	os.WriteFile(rec, []byte("rule,entity_id\n"), 0o644)
	sum := sha256.Sum256([]byte("rule,entity_id\n"))
	rel, _ := filepath.Rel(dir, rec)
	files := []ledger.File{{Path: filepath.ToSlash(rel), SHA256: hex.EncodeToString(sum[:])}}
	l := ledger.New(layout.Dir(dir).Ledger(), time.Now)
	dana := ledger.Actor{By: "dana", Auth: "tokens"}
	var closes []string
	for range 2 {
		so, err := l.SignOff(dana, ledger.SignOff{Snapshot: snap, Period: period, Name: "Dana", Role: "controller", Digest: "d"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := l.ClosePeriod(dana, ledger.Close{Period: period, Snapshot: snap, SignOff: so.ID, Digest: "d", Waivers: []string{}, Files: files})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.ReopenPeriod(dana, period, "a late credit note"); err != nil {
			t.Fatal(err)
		}
		closes = append(closes, c.ID)
	}
	pack := filepath.Join(t.TempDir(), "first.zip")
	if code, out, stderr := e2etest.CLI(t, srv, "evidence", "--out", dir, "--close", closes[0], "-o", pack); code != job.ExitOK ||
		!strings.HasPrefix(out, pack+": period "+period+", closed in "+closes[0]+" by dana") {
		t.Fatalf("evidence --close %s: exit %d: %s %s", closes[0], code, out, stderr)
	}
	if code, out, stderr := e2etest.CLI(t, srv, "evidence", "verify", pack, "--out", dir); code != job.ExitOK || !strings.Contains(out, "intact") ||
		!strings.Contains(out, "(2 entries") || !strings.Contains(out, "the store "+dir+" agrees") {
		t.Fatalf("evidence verify of the first close's pack: exit %d: %s %s", code, out, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--period", period}, "(" + closes[0] + ", " + closes[1] + "), is written with --close ID"},
		{[]string{"--close", "C99"}, `close "C99": the ledger holds no such close (its closes: ` + closes[0] + " (2026-10, reopened), "},
		{[]string{"--close", closes[1], "--period", "2026-09"}, "close " + closes[1] + " closed period 2026-10, not 2026-09"},
	} {
		code, _, stderr := e2etest.CLI(t, srv, append([]string{"evidence", "--out", dir, "-o", pack + ".x"}, tc.args...)...)
		if code != job.ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("evidence %v: exit %d: %s", tc.args, code, stderr)
		}
		if _, err := os.Stat(pack + ".x"); err == nil {
			t.Errorf("evidence %v wrote %s", tc.args, pack+".x")
		}
	}
}
