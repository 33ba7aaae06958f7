// Package evidence writes and verifies the evidence pack of a closed
// period: a BagIt bag (RFC 8493), zipped, that holds everything an
// auditor needs and shows that none of it was altered afterwards.
//
// The bag, in one top directory billsnap-evidence-YYYY-MM/:
//
//	bagit.txt, bag-info.txt               the bag's declaration and metadata
//	manifest-sha256.txt                   the SHA-256 of every file under data/
//	tagmanifest-sha256.txt                the SHA-256 of the three files above
//	data/closed/                          the closed record as the close wrote it:
//	  summary.md report.html findings.xlsx  the report of the closed reconciliation
//	  findings.csv findings.json findings.jsonl  its findings
//	  rules/<rule>.sql                    the rules' SQL as run
//	data/close.json                       the close, the ledger's head when packed
//	data/signoffs.json data/waivers.json  the period's sign-offs; the waivers in force at the close
//	data/ledger/ledger.jsonl              the ledger up to its head, byte for byte (its hash chain)
//	data/ledger/period.jsonl              the ledger's lines of the period
//	data/snapshot/parquet-manifest.csv    the closed snapshot's Parquet files: path, bytes, SHA-256
//	data/snapshot/tables.json             the snapshot's per-table figures (records, IDs' digest)
//
// Verify checks all of it again: the manifests, the ledger's chain, the
// closed record against the close's own hashes in the chain, and, given
// the store, the store's ledger and Parquet against the pack.
//
// [Write] packs the standing close of a period, or an earlier close of it
// that was reopened since (the Close of its [Source]: the ledger is then
// cut where that close was reopened). [Verify] works with or without the
// store. It is strict on members (duplicates, paths, kinds), reads them as
// a stream in bounded memory within the bag's Payload-Oxum, and ties every
// data file to the chain: derived again from it, or hashed by the close.
//
// The snapshot's per-table figures (tables.json) are handed in by the
// caller ([Figures], which billsnap and the workspace wire from
// readmodel.ManifestOf; [SnapshotRecord] takes them as a value): the
// package makes no query of its own, and its tests link no DuckDB.
package evidence

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/billsnap/billsnap/internal/atomicfile"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/manifest"
)

// Source is what a pack is made from.
type Source struct {
	Root       string         // the store's directory
	ParquetDir string         // where the snapshots' Parquet is
	Ledger     *ledger.Ledger // the store's ledger
	Figures    Figures        // the snapshot's per-table figures (nil: left out)
	Check      Check          // checks the snapshot's store files against its manifest (nil: not checked)
	Period     string         // YYYY-MM, a closed period ("" with Close: the close's)
	// Close is the ID of the close to pack, standing or reopened since;
	// "" packs the standing close of Period.
	Close    string
	Software string // billsnap and its version, for bag-info.txt
	Now      time.Time
}

// Figures gives snapshot id's per-table figures as the store holds them
// (its manifest, in the catalogue's order; none when the store no longer
// holds them). The caller wires it: billsnap and the workspace hand the
// read model's readmodel.Manifest over their database.
type Figures func(ctx context.Context, id string) ([]manifest.TableStats, error)

// Check checks the store's files of snapshot id against what the
// snapshot's manifest recorded of them when it was published, and is an
// error naming a file that differs (a snapshot the store no longer holds
// is no error). The caller wires it: billsnap and the workspace hand
// snapshot.VerifyFiles over.
type Check func(ctx context.Context, id string) error

// Pack is what a pack holds, for the caller to say.
type Pack struct {
	Name    string // the bag's top directory
	Close   ledger.Closed
	Head    ledger.Head
	Files   int // payload files
	Parquet int // Parquet files listed
}

// Write writes the evidence pack of a close to w as a zip: the standing
// close of src.Period, or close src.Close as the ledger stood before it
// was reopened (closeOf), the pack it would have been then. The ledger's
// chain must hold, the closed record must be as the close recorded it,
// and the snapshot's store files must hash to its manifest (src.Check);
// else nothing is written and the error names the line or the file.
// A period not closed is a *NotClosedError, a close the ledger does not
// hold (or not of src.Period) an *UnknownCloseError.
func Write(ctx context.Context, w io.Writer, src Source) (Pack, error) {
	lines, entries, err := src.Ledger.ReadLines()
	if err != nil {
		return Pack{}, err
	}
	if _, err := ledger.VerifyLines(src.Ledger.Path(), lines); err != nil {
		return Pack{}, err
	}
	at, err := closeOf(lines, entries, src)
	if err != nil {
		return Pack{}, err
	}
	c, period := at.close, at.close.Period
	head, err := ledger.VerifyLines(src.Ledger.Path(), at.lines)
	if err != nil {
		return Pack{}, err
	}
	if src.Check != nil {
		if err := src.Check(ctx, c.Snapshot); err != nil {
			return Pack{}, fmt.Errorf("the evidence of %s is not written: %w", c.ID, err)
		}
	}
	b := newBag("billsnap-evidence-" + period)
	if err := addClosed(b, src.Root, c); err != nil {
		return Pack{}, err
	}
	if err := addLedger(b, at.lines, at.entries, at.st, c, head); err != nil {
		return Pack{}, err
	}
	n, err := addSnapshot(ctx, b, src, c.Snapshot)
	if err != nil {
		return Pack{}, err
	}
	info := []string{"Source-Organization: billsnap", "Bagging-Date: " + src.Now.UTC().Format(time.DateOnly),
		"Bag-Software-Agent: " + src.Software, "External-Description: the evidence of period " + period + ", closed in " + c.ID,
		"Billsnap-Period: " + period, "Billsnap-Close: " + c.ID, "Billsnap-Snapshot: " + c.Snapshot,
		"Billsnap-Ledger-Head: " + head.Hash}
	if err := b.write(w, info); err != nil {
		return Pack{}, err
	}
	return Pack{Name: b.name, Close: c, Head: head, Files: len(b.payload), Parquet: n}, nil
}

// addClosed adds the close's record, each file checked against the
// SHA-256 the close recorded.
func addClosed(b *bag, root string, c ledger.Closed) error {
	base := commonDir(c.Files)
	for _, f := range c.Files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil {
			return fmt.Errorf("the closed record of %s: %w", c.ID, err)
		}
		if sum := sha(data); sum != f.SHA256 {
			return &MismatchError{What: f.Path, Why: fmt.Sprintf("its SHA-256 is %s, and close %s recorded %s: the closed record was changed after the close", sum, c.ID, f.SHA256)}
		}
		b.add("data/closed/"+strings.TrimPrefix(f.Path, base), data)
	}
	return nil
}

// commonDir is the directory of the closed record: what every path starts
// with, up to its last slash.
func commonDir(files []ledger.File) string {
	if len(files) == 0 {
		return ""
	}
	p := files[0].Path
	for _, f := range files[1:] {
		for !strings.HasPrefix(f.Path, p) {
			p = p[:len(p)-1]
		}
	}
	return p[:strings.LastIndex(p, "/")+1]
}

// addLedger adds the files derived from the ledger (ledgerFiles).
func addLedger(b *bag, lines [][]byte, entries []ledger.Entry, st ledger.State, c ledger.Closed, head ledger.Head) error {
	files, err := ledgerFiles(lines, entries, st, c, head)
	for p, data := range files {
		b.add(p, data)
	}
	return err
}

// ledgerFiles are the pack's files derived from the ledger up to its
// head, by path in the bag: the ledger, its lines of the period, the
// close, the period's sign-offs and the waivers in force at the close.
// Verify derives them again from the pack's ledger and compares them
// byte for byte.
func ledgerFiles(lines [][]byte, entries []ledger.Entry, st ledger.State, c ledger.Closed, head ledger.Head) (map[string][]byte, error) {
	var all, period []byte
	closes := map[string]bool{}
	for _, x := range st.Closes {
		if x.Period == c.Period {
			closes[x.ID] = true
		}
	}
	for i, line := range lines {
		all = append(append(all, line...), '\n')
		if ofPeriod(entries[i], c, closes) {
			period = append(append(period, line...), '\n')
		}
	}
	var signoffs []ledger.Signed
	for _, so := range st.SignOffs {
		if so.Period == c.Period {
			signoffs = append(signoffs, so)
		}
	}
	var waivers []ledger.Made
	for _, w := range st.Waivers {
		if slices.Contains(c.Waivers, w.ID) {
			waivers = append(waivers, w)
		}
	}
	out := map[string][]byte{"data/ledger/ledger.jsonl": all, "data/ledger/period.jsonl": period}
	var errs []error
	for p, v := range map[string]any{"data/close.json": map[string]any{"period": c.Period, "close": c, "ledger_head": head},
		"data/signoffs.json": signoffs, "data/waivers.json": waivers} {
		data, err := jsonFile(v)
		out[p] = data
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// ofPeriod tells whether e belongs to the period of close c: its
// sign-offs, closes and reopens, the explanations of its flux review,
// the adjustments of its closes, and the making of the waivers in force
// at c.
func ofPeriod(e ledger.Entry, c ledger.Closed, closes map[string]bool) bool {
	switch {
	case e.SignOff != nil:
		return e.SignOff.Period == c.Period
	case e.Close != nil:
		return e.Close.Period == c.Period
	case e.Reopen != nil:
		return e.Reopen.Period == c.Period
	case e.Explanation != nil:
		return e.Explanation.Period == c.Period
	case e.Waiver != nil && slices.Contains(c.Waivers, e.Waiver.ID):
		return true
	}
	return closes[e.PostClose]
}

// addSnapshot adds the manifest of the snapshot's Parquet files and its
// per-table figures, and gives the count of files.
func addSnapshot(ctx context.Context, b *bag, src Source, id string) (int, error) {
	files, err := parquetFiles(ctx, src.Root, src.ParquetDir, id)
	if err != nil {
		return 0, err
	}
	b.add("data/snapshot/parquet-manifest.csv", parquetManifest(files))
	if recorded := b.payload["data/closed/snapshot/parquet-manifest.csv"]; recorded != nil {
		// The close recorded the snapshot's files: the pack holds those.
		b.add("data/snapshot/parquet-manifest.csv", recorded)
		b.add("data/snapshot/tables.json", b.payload["data/closed/snapshot/tables.json"])
		return bytes.Count(recorded, []byte{'\n'}) - 1, nil
	}
	if src.Figures != nil {
		tables, err := src.Figures(ctx, id)
		if err != nil {
			return 0, err
		}
		data, err := tablesFile(id, tables)
		if err != nil {
			return 0, err
		}
		b.add("data/snapshot/tables.json", data)
	}
	return len(files), nil
}

// SnapshotRecord writes the snapshot's files that a close records with
// its closed record, into dir/snapshot/: parquet-manifest.csv (snapshot
// id's Parquet files under parquetDir, found inside the store root) and
// tables.json (tables, its per-table figures), and gives their paths. The
// close's SHA-256 of them ties the pack's copies to the ledger's chain.
func SnapshotRecord(ctx context.Context, root, parquetDir, id string, tables []manifest.TableStats, dir string) ([]string, error) {
	files, err := parquetFiles(ctx, root, parquetDir, id)
	if err != nil {
		return nil, err
	}
	data, err := tablesFile(id, tables)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "snapshot"), 0o755); err != nil {
		return nil, err
	}
	var out []string
	for name, data := range map[string][]byte{"parquet-manifest.csv": parquetManifest(files), "tables.json": data} {
		p := filepath.Join(dir, "snapshot", name)
		if err := atomicfile.WriteFunc(p, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

// tablesFile is data/snapshot/tables.json: snapshot id's per-table
// figures.
func tablesFile(id string, tables []manifest.TableStats) ([]byte, error) {
	return jsonFile(map[string]any{"snapshot_id": id, "tables": tables})
}

// parquetManifest is data/snapshot/parquet-manifest.csv of files.
func parquetManifest(files []parquetFile) []byte {
	var m strings.Builder
	m.WriteString("path,bytes,sha256\n")
	for _, f := range files {
		fmt.Fprintf(&m, "%s,%d,%s\n", f.path, f.bytes, f.sum)
	}
	return []byte(m.String())
}

// parquetFile is one Parquet file of a snapshot: its path relative to
// the store, size and SHA-256.
type parquetFile struct {
	path  string
	bytes int64
	sum   string
}

// parquetFiles lists and hashes the Parquet files of snapshot id under
// dir, in path order; none when the store no longer holds it. Every path
// resolves inside root (os.Root: no "..", no symlink out), and each must
// be a regular file. ctx stops the hashing.
func parquetFiles(ctx context.Context, root, dir, id string) ([]parquetFile, error) {
	if id == "" || strings.ContainsAny(id, `/\*?[]`) || id == "." || id == ".." {
		return nil, &MismatchError{What: "snapshot " + id, Why: "not a snapshot ID"}
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return nil, fmt.Errorf("the Parquet directory %s is not inside the store %s", dir, root)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	paths, err := fs.Glob(r.FS(), path.Join(filepath.ToSlash(rel), "*", "snapshot_id="+id, "*.parquet"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var out []parquetFile
	for _, p := range paths {
		sum, n, err := hashIn(ctx, r, p)
		if err != nil {
			return nil, err
		}
		out = append(out, parquetFile{path: p, bytes: n, sum: sum})
	}
	return out, nil
}

// hashIn is the hex SHA-256 and size of the regular file p inside r.
func hashIn(ctx context.Context, r *os.Root, p string) (string, int64, error) {
	f, err := r.OpenFile(filepath.FromSlash(p), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", 0, &MismatchError{What: p, Why: "not a regular file in the store"}
	}
	sum, n, err := fileutil.SHA256(ctx, f)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", p, err)
	}
	return sum, n, nil
}

// HashFile is the hex SHA-256 of the file at p, and its size.
func HashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// bag is a BagIt bag being made: its payload, by path under the bag.
type bag struct {
	name    string
	payload map[string][]byte
}

func newBag(name string) *bag { return &bag{name: name, payload: map[string][]byte{}} }

func (b *bag) add(p string, data []byte) { b.payload[p] = data }

// jsonFile is v as the pack's JSON files are written: indented, with a
// final newline.
func jsonFile(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	return append(data, '\n'), err
}

// write writes the bag as a zip: the tag files (bagit.txt, bag-info.txt
// with info and the payload's Oxum, the manifests) first, then the
// payload in path order.
func (b *bag) write(w io.Writer, info []string) error {
	paths := slices.Sorted(maps.Keys(b.payload))
	var manifest strings.Builder
	var octets int
	for _, p := range paths {
		fmt.Fprintf(&manifest, "%s  %s\n", sha(b.payload[p]), p)
		octets += len(b.payload[p])
	}
	tags := []struct {
		name string
		data []byte
	}{
		{"bagit.txt", []byte("BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")},
		{"bag-info.txt", []byte(strings.Join(append(info, fmt.Sprintf("Payload-Oxum: %d.%d", octets, len(paths))), "\n") + "\n")},
		{"manifest-sha256.txt", []byte(manifest.String())},
	}
	var tagManifest strings.Builder
	for _, t := range tags {
		fmt.Fprintf(&tagManifest, "%s  %s\n", sha(t.data), t.name)
	}
	zw := zip.NewWriter(w)
	put := func(name string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: path.Join(b.name, name), Method: zip.Deflate, Modified: time.Unix(0, 0).UTC()})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	for _, t := range tags {
		if err := put(t.name, t.data); err != nil {
			return err
		}
	}
	if err := put("tagmanifest-sha256.txt", []byte(tagManifest.String())); err != nil {
		return err
	}
	for _, p := range paths {
		if err := put(p, b.payload[p]); err != nil {
			return err
		}
	}
	return zw.Close()
}
