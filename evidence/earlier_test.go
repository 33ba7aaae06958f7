package evidence

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/ledger"
)

// reopenedStore is a store whose period was closed (C1), adjusted after the
// close (a sign-off), reopened, waived again, signed off and closed
// again (C2), each close with a closed record of its own; no read model.
type reopenedStore struct {
	store  *Against
	c1, c2 ledger.Closed
	cutAt  int // the lines of the ledger before C1's reopening
}

// newReopened makes the store in a temporary directory.
func newReopened(t testing.TB) reopenedStore {
	t.Helper()
	root := t.TempDir()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	record := func(dir, findings string) []ledger.File {
		var files []ledger.File
		for _, f := range []struct{ rel, data string }{{dir + "/findings.csv", findings}, {dir + "/rules/R1.sql", "SELECT 1"}} {
			p := filepath.Join(root, filepath.FromSlash(f.rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(f.data), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, ledger.File{Path: f.rel, SHA256: sha([]byte(f.data))})
		}
		return files
	}
	pq := filepath.Join(root, "parquet/invoices/snapshot_id=SNAP1/part-0.parquet")
	if err := os.MkdirAll(filepath.Dir(pq), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pq, []byte("PAR1 rows of invoices PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := ledger.New(filepath.Join(root, "ledger.jsonl"), func() time.Time { return at })
	dana := ledger.Actor{By: "dana", Auth: "tokens"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	closeOn := func(digest string, waivers []string, files []ledger.File) ledger.Closed {
		so, err := l.SignOff(dana, ledger.SignOff{Snapshot: "SNAP1", Period: testPeriod, Name: "Dana", Role: "controller", Findings: 1, Digest: digest})
		must(err)
		c, err := l.ClosePeriod(dana, ledger.Close{Period: testPeriod, Snapshot: "SNAP1", SignOff: so.ID, Findings: 1, Digest: digest,
			Waivers: waivers, Files: files})
		must(err)
		return c
	}
	w1, err := l.Waive(dana, ledger.Waiver{Rule: "R1", EntityID: "INV-1", Reason: "credit note", Owner: "dana", Expires: "2099-12-31"})
	must(err)
	c1 := closeOn("d1", []string{w1.ID}, record("closes/2026-10/first", "rule,entity_id\nR1,INV-1\n"))
	_, err = l.SignOff(dana, ledger.SignOff{Snapshot: "SNAP1", Period: testPeriod, Name: "Erin", Role: "auditor", Findings: 1, Digest: "d1"})
	must(err) // a post-close adjustment of C1
	lines, _, err := l.ReadLines()
	must(err)
	_, err = l.ReopenPeriod(dana, testPeriod, "a late credit note")
	must(err)
	w2, err := l.Waive(dana, ledger.Waiver{Rule: "R1", EntityID: "INV-2", Reason: "late credit", Owner: "dana", Expires: "2099-12-31"})
	must(err)
	c2 := closeOn("d2", []string{w1.ID, w2.ID}, record("closes/2026-10/second", "rule,entity_id\nR1,INV-3\n"))
	return reopenedStore{store: &Against{Root: root, ParquetDir: filepath.Join(root, "parquet"), Ledger: l}, c1: c1, c2: c2, cutAt: len(lines)}
}

// pack writes the pack src asks of r's store.
func (r reopenedStore) pack(src Source) (Pack, []byte, error) {
	src.Root, src.ParquetDir, src.Ledger, src.Software, src.Now = r.store.Root, r.store.ParquetDir, r.store.Ledger, "billsnap test", time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	p, err := Write(context.Background(), &b, src)
	return p, b.Bytes(), err
}

// The pack of a close reopened since is the one written the moment before
// the reopening: it verifies, alone and against the store, its close.json
// names that close and its ledger ends before the reopening, its
// adjustment included; the standing close's pack is unchanged.
func TestAnEarlierClosesPackIsAsItWasThen(t *testing.T) {
	t.Parallel()
	r := newReopened(t)
	all, _, err := r.store.Ledger.ReadLines()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		src     Source
		close   ledger.Closed
		lines   int    // of the pack's ledger
		closed  string // a closed record's file
		waivers int
	}{
		{"the first close, reopened", Source{Close: r.c1.ID}, r.c1, r.cutAt, "data/closed/findings.csv", 1},
		{"the first close, its period given", Source{Close: r.c1.ID, Period: testPeriod}, r.c1, r.cutAt, "", 1},
		{"the standing close by its ID", Source{Close: r.c2.ID}, r.c2, len(all), "", 2},
		{"the standing close by its period", Source{Period: testPeriod}, r.c2, len(all), "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, pack, err := r.pack(tc.src)
			if err != nil || p.Close.ID != tc.close.ID || p.Name != "billsnap-evidence-"+testPeriod || p.Head.Entries != tc.lines {
				t.Fatalf("write: %+v %v", p, err)
			}
			for _, store := range []*Against{nil, r.store} {
				if v, err := verifyBytes(t, context.Background(), pack, store); err != nil || v.Entries != tc.lines {
					t.Fatalf("verify (store %v): %+v %v", store != nil, v, err)
				}
			}
			_, files := unpack(t, pack)
			var cj struct {
				Close ledger.Closed `json:"close"`
			}
			if err := json.Unmarshal(files["data/close.json"], &cj); err != nil || cj.Close.ID != tc.close.ID || cj.Close.Reopened != nil {
				t.Fatalf("close.json: %+v %v\n%s", cj, err, files["data/close.json"])
			}
			if got := bytes.Count(files["data/ledger/ledger.jsonl"], []byte("\n")); got != tc.lines {
				t.Fatalf("the pack's ledger holds %d lines, want %d", got, tc.lines)
			}
			if got := strings.Count(string(files["data/waivers.json"]), `"id"`); got != tc.waivers {
				t.Fatalf("waivers.json holds %d waivers, want %d:\n%s", got, tc.waivers, files["data/waivers.json"])
			}
			if tc.closed != "" && !bytes.Equal(files[tc.closed], []byte("rule,entity_id\nR1,INV-1\n")) {
				t.Fatalf("%s is not the first close's: %q", tc.closed, files[tc.closed])
			}
			if tc.close.ID == r.c1.ID && (!bytes.Contains(files["data/ledger/period.jsonl"], []byte(`"post_close":"`+r.c1.ID+`"`)) ||
				bytes.Contains(files["data/ledger/ledger.jsonl"], []byte(`"reopen"`)) || bytes.Contains(files["data/ledger/ledger.jsonl"], []byte(`INV-2`))) {
				t.Fatalf("the first close's ledger is not the ledger before its reopening:\n%s", files["data/ledger/ledger.jsonl"])
			}
		})
	}
}

// A pack of the first close is refused when its ledger runs past the
// reopening (the genuine lines after it appended) or its close.json is
// rewritten, the bag's manifests recomputed each time.
func TestADoctoredEarlierPackIsRefused(t *testing.T) {
	t.Parallel()
	r := newReopened(t)
	_, pack, err := r.pack(Source{Close: r.c1.ID})
	if err != nil {
		t.Fatal(err)
	}
	all, err := os.ReadFile(r.store.Ledger.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		edit       func(bagFiles)
	}{
		{"the ledger after the reopening appended", "bag-info.txt: Billsnap-", func(b bagFiles) { b["data/ledger/ledger.jsonl"] = all }},
		{"close.json naming the second close", "data/close.json: not what the pack's chained ledger gives", func(b bagFiles) {
			b["data/close.json"] = bytes.Replace(b["data/close.json"], []byte(`"`+r.c1.ID+`"`), []byte(`"`+r.c2.ID+`"`), 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top, files := unpack(t, pack)
			tc.edit(files)
			_, err := verifyBytes(t, context.Background(), zipOf(t, top, files.rebag(), nil, nil), nil)
			var m *MismatchError
			if !errors.As(err, &m) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a mismatch naming %q", err, tc.want)
			}
		})
	}
}

// A close the ledger does not hold, or not of the period asked, is an
// *UnknownCloseError listing the ledger's closes; a period reopened is a
// *NotClosedError naming its earlier closes.
func TestAPackOfNoSuchClose(t *testing.T) {
	t.Parallel()
	r := newReopened(t)
	var unknown *UnknownCloseError
	if _, pack, err := r.pack(Source{Close: "C99"}); !errors.As(err, &unknown) || len(pack) != 0 ||
		!strings.Contains(err.Error(), `close "C99": the ledger holds no such close (its closes: `+r.c1.ID+" (2026-10, reopened), "+r.c2.ID+" (2026-10, standing))") {
		t.Fatalf("an unknown close: %v (%d bytes written)", err, len(pack))
	}
	if _, _, err := r.pack(Source{Close: r.c1.ID, Period: "2026-09"}); !errors.As(err, &unknown) ||
		err.Error() != "close "+r.c1.ID+" closed period 2026-10, not 2026-09" {
		t.Fatalf("a close of another period: %v", err)
	}
	if _, err := r.store.Ledger.ReopenPeriod(ledger.Actor{By: "dana"}, testPeriod, "again"); err != nil {
		t.Fatal(err)
	}
	var nc *NotClosedError
	if _, _, err := r.pack(Source{Period: testPeriod}); !errors.As(err, &nc) || !strings.Contains(err.Error(), "("+r.c1.ID+", "+r.c2.ID+"), is written with --close ID") {
		t.Fatalf("a period reopened: %v", err)
	}
	if _, pack, err := r.pack(Source{Close: r.c2.ID}); err != nil {
		t.Fatal(err)
	} else if _, err := verifyBytes(t, context.Background(), pack, r.store); err != nil {
		t.Fatalf("the second close's pack, reopened too: %v", err)
	}
}
