package evidence

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/ledger"
)

// MismatchError is what makes a pack, or the store, differ from what it
// should be: the file or ledger entry, and how.
type MismatchError struct{ What, Why string }

func (e *MismatchError) Error() string { return e.What + ": " + e.Why }

// Store is the store a pack is checked against: where it is, where its
// Parquet is, and its ledger.
type Store struct {
	Root, ParquetDir string
	Ledger           *ledger.Ledger
}

// Verified is what Verify checked.
type Verified struct {
	Name    string // the bag's top directory
	Files   int    // payload files re-hashed
	Entries int    // ledger entries whose chain was checked
	Head    string
	Store   bool // the store's ledger was checked against the pack's
	Parquet int  // the store's Parquet files re-hashed
	Notes   []string
}

// Verify re-hashes every file of the pack at zipPath against its
// manifests, re-runs the ledger's chain, checks the closed record against
// the close's hashes in that chain and, with a store, that the store's
// ledger begins with the pack's lines and still chains, and that its
// Parquet of the snapshot is the pack's manifest. The first difference is
// a *MismatchError (or the ledger's *ledger.BrokenError) naming the file
// or entry.
func Verify(zipPath string, store *Store) (Verified, error) {
	files, name, err := readZip(zipPath)
	if err != nil {
		return Verified{}, err
	}
	v := Verified{Name: name}
	if err := checkBag(files, &v); err != nil {
		return v, err
	}
	lines := splitLines(files["data/ledger/ledger.jsonl"])
	head, err := ledger.VerifyLines("data/ledger/ledger.jsonl in the pack", lines)
	if err != nil {
		return v, err
	}
	v.Entries, v.Head = head.Entries, head.Hash
	if err := checkClose(files, lines); err != nil {
		return v, err
	}
	if store == nil {
		v.Notes = append(v.Notes, "no store given: the pack was checked by itself")
		return v, nil
	}
	if err := checkStoreLedger(store, lines); err != nil {
		return v, err
	}
	v.Store = true
	return v, checkParquet(store, files["data/snapshot/parquet-manifest.csv"], &v)
}

// readZip reads every file of the zip, by its path under the bag's one
// top directory.
func readZip(p string) (map[string][]byte, string, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, "", err
	}
	defer zr.Close()
	out := map[string][]byte{}
	top := ""
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		dir, rest, ok := strings.Cut(f.Name, "/")
		if !ok || (top != "" && dir != top) {
			return nil, "", &MismatchError{What: f.Name, Why: "outside the bag's one top directory"}
		}
		top = dir
		data, err := readEntry(f)
		if err != nil {
			return nil, "", &MismatchError{What: f.Name, Why: err.Error()}
		}
		out[rest] = data
	}
	return out, top, nil
}

func readEntry(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// checkBag checks the tag files against tagmanifest-sha256.txt and every
// payload file against manifest-sha256.txt, both ways: a file listed and
// missing, or present and not listed, differs too.
func checkBag(files map[string][]byte, v *Verified) error {
	for _, tag := range []string{"bagit.txt", "tagmanifest-sha256.txt", "manifest-sha256.txt"} {
		if _, ok := files[tag]; !ok {
			return &MismatchError{What: tag, Why: "missing: not a BagIt bag of billsnap's"}
		}
	}
	tags, err := checkManifest(files, "tagmanifest-sha256.txt")
	if err != nil {
		return err
	}
	for _, t := range []string{"bagit.txt", "bag-info.txt", "manifest-sha256.txt"} {
		if !tags[t] {
			return &MismatchError{What: t, Why: "not listed in tagmanifest-sha256.txt"}
		}
	}
	listed, err := checkManifest(files, "manifest-sha256.txt")
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if strings.HasPrefix(p, "data/") && !listed[p] {
			return &MismatchError{What: p, Why: "in the pack but not in manifest-sha256.txt"}
		}
	}
	v.Files = len(listed)
	return nil
}

// checkManifest re-hashes every file a manifest lists and gives the set.
func checkManifest(files map[string][]byte, manifest string) (map[string]bool, error) {
	listed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(files[manifest]))
	for n := 1; sc.Scan(); n++ {
		sum, p, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			return nil, &MismatchError{What: fmt.Sprintf("%s line %d", manifest, n), Why: "not \"SHA-256  path\""}
		}
		data, ok := files[p]
		if !ok {
			return nil, &MismatchError{What: p, Why: "listed in " + manifest + " but not in the pack"}
		}
		if got := sha(data); got != sum {
			return nil, &MismatchError{What: p, Why: fmt.Sprintf("its SHA-256 is %s, and line %d of %s says %s: the file, or that line, was changed", got, n, manifest, sum)}
		}
		listed[p] = true
	}
	return listed, sc.Err()
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for l := range bytes.SplitSeq(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'}) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// checkClose finds the pack's close in its chained ledger and checks the
// closed record's files against the hashes that entry holds, and the
// period's lines against the ledger's.
func checkClose(files map[string][]byte, lines [][]byte) error {
	var c struct {
		Close struct{ ID string } `json:"close"`
	}
	if err := json.Unmarshal(files["data/close.json"], &c); err != nil || c.Close.ID == "" {
		return &MismatchError{What: "data/close.json", Why: "no close in it"}
	}
	var close *ledger.Close
	for _, line := range lines {
		var e ledger.Entry
		if json.Unmarshal(line, &e) == nil && e.Close != nil && e.Close.ID == c.Close.ID {
			close = e.Close
		}
	}
	if close == nil {
		return &MismatchError{What: "data/ledger/ledger.jsonl", Why: "holds no close " + c.Close.ID}
	}
	base := commonDir(close.Files)
	for _, f := range close.Files {
		p := "data/closed/" + strings.TrimPrefix(f.Path, base)
		data, ok := files[p]
		if !ok {
			return &MismatchError{What: p, Why: "close " + close.ID + " recorded it, and the pack has no such file"}
		}
		if got := sha(data); got != f.SHA256 {
			return &MismatchError{What: p, Why: fmt.Sprintf("its SHA-256 is %s, and close %s in the ledger recorded %s", got, close.ID, f.SHA256)}
		}
	}
	for n, line := range splitLines(files["data/ledger/period.jsonl"]) {
		if !slices.ContainsFunc(lines, func(l []byte) bool { return bytes.Equal(l, line) }) {
			return &MismatchError{What: fmt.Sprintf("data/ledger/period.jsonl line %d", n+1), Why: "not a line of the pack's ledger"}
		}
	}
	return nil
}

// checkStoreLedger checks that the store's ledger still chains and begins
// with the pack's lines, byte for byte.
func checkStoreLedger(s *Store, lines [][]byte) error {
	stored, _, err := s.Ledger.ReadLines()
	if err != nil {
		return err
	}
	if _, err := s.Ledger.Verify(); err != nil {
		return err
	}
	for i, line := range lines {
		what := fmt.Sprintf("the store's ledger %s line %d (seq %s)", s.Ledger.Path(), i+1, seqOf(line))
		if i >= len(stored) {
			return &MismatchError{What: what, Why: "missing: the store's ledger is shorter than the pack's"}
		}
		if !bytes.Equal(stored[i], line) {
			return &MismatchError{What: what, Why: "differs from the pack's line"}
		}
	}
	return nil
}

func seqOf(line []byte) string {
	var e struct{ Seq int }
	json.Unmarshal(line, &e)
	return strconv.Itoa(e.Seq)
}

// checkParquet re-hashes the store's Parquet files the pack lists. A
// snapshot the store no longer holds at all is a note, not a difference
// (retention may have removed it); one file gone or changed is.
func checkParquet(s *Store, manifest []byte, v *Verified) error {
	rows := splitLines(manifest)
	if len(rows) < 2 {
		return nil
	}
	present := 0
	for _, row := range rows[1:] {
		if p := strings.SplitN(string(row), ",", 3)[0]; fileExists(filepath.Join(s.Root, filepath.FromSlash(p))) {
			present++
		}
	}
	if present == 0 {
		v.Notes = append(v.Notes, "the store no longer holds the snapshot's Parquet: not checked")
		return nil
	}
	for _, row := range rows[1:] {
		f := strings.SplitN(string(row), ",", 3)
		if len(f) != 3 {
			return &MismatchError{What: "data/snapshot/parquet-manifest.csv", Why: "a row is not path,bytes,sha256"}
		}
		sum, _, err := HashFile(filepath.Join(s.Root, filepath.FromSlash(f[0])))
		if errors.Is(err, os.ErrNotExist) {
			return &MismatchError{What: f[0], Why: "the pack lists it and the store no longer has it"}
		}
		if err != nil {
			return err
		}
		if sum != f[2] {
			return &MismatchError{What: f[0], Why: fmt.Sprintf("the store's file hashes to %s, and the pack's manifest says %s", sum, f[2])}
		}
		v.Parquet++
	}
	return nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
