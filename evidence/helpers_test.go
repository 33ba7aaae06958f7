package evidence

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/ledger"
)

// testPeriod is the period the genuine pack closes.
const testPeriod = "2026-10"

// fixture is a store holding a closed period, with no read model: a
// ledger (a sign-off, a waiver, the close), a closed record of two files
// and one Parquet file of the snapshot; and the genuine pack of it.
type fixture struct {
	store *Against
	pack  []byte
}

// newFixture makes the store in a temporary directory and packs it.
func newFixture(t testing.TB) fixture {
	t.Helper()
	root := t.TempDir()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	write := func(rel, data string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return rel
	}
	write("parquet/invoices/snapshot_id=SNAP1/part-0.parquet", "PAR1 rows of invoices PAR1")
	var files []ledger.File
	for rel, data := range map[string]string{"closes/2026-10/r/findings.csv": "rule,entity_id\nR1,INV-1\n", "closes/2026-10/r/rules/R1.sql": "SELECT 1"} {
		write(rel, data)
		files = append(files, ledger.File{Path: rel, SHA256: sha([]byte(data))})
	}
	slices.SortFunc(files, func(a, b ledger.File) int { return strings.Compare(a.Path, b.Path) })
	l := ledger.New(filepath.Join(root, "ledger.jsonl"), func() time.Time { return at })
	dana := ledger.Actor{By: "dana", Auth: "tokens"}
	w, err := l.Waive(dana, ledger.Waiver{Rule: "R1", EntityID: "INV-1", Reason: "credit note", Owner: "dana", Expires: "2099-12-31"})
	if err != nil {
		t.Fatal(err)
	}
	so, err := l.SignOff(dana, ledger.SignOff{Snapshot: "SNAP1", Period: testPeriod, Name: "Dana", Role: "controller", Findings: 1, Digest: "d1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.ClosePeriod(dana, ledger.Close{Period: testPeriod, Snapshot: "SNAP1", SignOff: so.ID, Findings: 1, Digest: "d1",
		Waivers: []string{w.ID}, Files: files}); err != nil {
		t.Fatal(err)
	}
	store := &Against{Root: root, ParquetDir: filepath.Join(root, "parquet"), Ledger: l}
	var b bytes.Buffer
	if _, err := Write(context.Background(), &b, Source{Root: root, ParquetDir: store.ParquetDir, Ledger: l, Period: testPeriod,
		Software: "billsnap test", Now: at}); err != nil {
		t.Fatal(err)
	}
	return fixture{store: store, pack: b.Bytes()}
}

// bagFiles are a pack's files by path under its top directory.
type bagFiles map[string][]byte

// unpack reads a pack made by Write.
func unpack(t testing.TB, pack []byte) (string, bagFiles) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pack), int64(len(pack)))
	if err != nil {
		t.Fatal(err)
	}
	files := bagFiles{}
	top := ""
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		dir, rest, _ := strings.Cut(f.Name, "/")
		top, files[rest] = dir, data
	}
	return top, files
}

// rebag recomputes what a forger would: manifest-sha256.txt over every
// file under data/, the Payload-Oxum and the tag manifest.
func (b bagFiles) rebag() bagFiles {
	var m strings.Builder
	octets, n := 0, 0
	for _, p := range slices.Sorted(maps.Keys(b)) {
		if strings.HasPrefix(p, "data/") {
			fmt.Fprintf(&m, "%s  %s\n", sha(b[p]), p)
			octets, n = octets+len(b[p]), n+1
		}
	}
	b["manifest-sha256.txt"] = []byte(m.String())
	info := strings.Split(strings.TrimSuffix(string(b["bag-info.txt"]), "\n"), "\n")
	info[len(info)-1] = fmt.Sprintf("Payload-Oxum: %d.%d", octets, n)
	b["bag-info.txt"] = []byte(strings.Join(info, "\n") + "\n")
	return b.retag()
}

// retag recomputes the tag manifest only.
func (b bagFiles) retag() bagFiles {
	var t strings.Builder
	for _, p := range []string{"bagit.txt", "bag-info.txt", "manifest-sha256.txt"} {
		fmt.Fprintf(&t, "%s  %s\n", sha(b[p]), p)
	}
	b["tagmanifest-sha256.txt"] = []byte(t.String())
	return b
}

// raw is a member written as it stands, ahead of or after the bag's.
type raw struct {
	name string
	data []byte
	hdr  func(*zip.FileHeader)
}

// zipOf writes files under top as a zip, with before and after around
// them.
func zipOf(t testing.TB, top string, files bagFiles, before, after []raw) []byte {
	t.Helper()
	var all []raw
	all = append(all, before...)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		all = append(all, raw{name: top + "/" + p, data: files[p]})
	}
	all = append(all, after...)
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, r := range all {
		h := &zip.FileHeader{Name: r.name, Method: zip.Deflate}
		if r.hdr != nil {
			r.hdr(h)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(r.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// verifyBytes writes pack to a file and verifies it.
func verifyBytes(t testing.TB, ctx context.Context, pack []byte, store *Against) (Verified, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pack.zip")
	if err := os.WriteFile(p, pack, 0o644); err != nil {
		t.Fatal(err)
	}
	return Verify(ctx, p, store)
}
