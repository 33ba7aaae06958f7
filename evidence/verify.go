package evidence

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/ledger"
)

// MismatchError is what makes a pack, or the store, differ from what it
// should be: the file or ledger entry, and how.
type MismatchError struct{ What, Why string }

func (e *MismatchError) Error() string { return e.What + ": " + e.Why }

// Against is the store a pack is checked against: where it is, where its
// Parquet is, its ledger and, when its read model is open, the
// snapshot's per-table figures in it.
type Against struct {
	Root, ParquetDir string
	Ledger           *ledger.Ledger
	Figures          Figures // nil: tables.json is not recomputed
}

// Verified is what Verify checked.
type Verified struct {
	Name    string // the bag's top directory
	Files   int    // payload files re-hashed
	Entries int    // ledger entries whose chain was checked
	Head    string
	Store   bool     // the store's ledger was checked against the pack's
	Parquet int      // the store's Parquet files re-hashed
	Untied  []string // files of the pack that nothing in the chain or the store vouches for
	Notes   []string
}

// Verify checks the pack at zipPath: every member's name and kind, every
// file against the bag's manifests (streamed through SHA-256, never more
// bytes than its Payload-Oxum declares), the ledger's chain, the files
// derived from the ledger (close.json, signoffs.json, waivers.json,
// period.jsonl) byte for byte, and the closed record against the close's
// hashes in that chain. With a store, it also checks that the store's
// ledger begins with the pack's lines and still chains, and that the
// store's Parquet of the snapshot is the pack's manifest, and its
// per-table figures the pack's tables.json. ctx bounds it in time. The
// first difference is a *MismatchError (or the ledger's
// *ledger.BrokenError) naming the file, member or entry.
func Verify(ctx context.Context, zipPath string, store *Against) (Verified, error) {
	zr, top, members, err := openZip(zipPath)
	if err != nil {
		return Verified{}, err
	}
	defer zr.Close()
	v := Verified{Name: top}
	b, err := readBag(ctx, members)
	if err != nil {
		return v, err
	}
	payload, err := hashPayload(ctx, members, b)
	if err != nil {
		return v, err
	}
	v.Files = len(payload)
	p, err := checkLedger(top, b, payload)
	if err != nil {
		return v, err
	}
	v.Entries, v.Head = p.head.Entries, p.head.Hash
	rows, err := parseParquetManifest(payload["data/snapshot/parquet-manifest.csv"].data, p.close.Snapshot)
	if err != nil {
		return v, err
	}
	if store == nil {
		v.Untied = untied(payload, p.tied, false)
		v.Notes = append(v.Notes, "no store given: the pack was checked by itself")
		return v, nil
	}
	if err := checkStoreLedger(store, p.lines); err != nil {
		return v, err
	}
	v.Store = true
	parquet, err := checkParquet(ctx, store, p.close.Snapshot, rows, &v)
	if err != nil {
		return v, err
	}
	tables, err := checkTables(ctx, store, p.close.Snapshot, payload, &v)
	if err != nil {
		return v, err
	}
	v.Untied = untied(payload, p.tied, parquet, tables)
	return v, nil
}

// untied are the snapshot's files of the pack that neither the close's
// hashes in the chain nor the store (checked: which of the two files it
// vouched for) vouched for.
func untied(payload map[string]hashed, tied map[string]bool, checked ...bool) []string {
	var out []string
	for i, p := range snapshotFiles {
		if _, ok := payload[p]; ok && !tied[p] && !(i < len(checked) && checked[i]) {
			out = append(out, p)
		}
	}
	return out
}

// snapshotFiles are the pack's files of the snapshot.
var snapshotFiles = []string{"data/snapshot/parquet-manifest.csv", "data/snapshot/tables.json"}

// packLedger is the pack's ledger, checked: its lines, its head and the
// close the pack is of.
type packLedger struct {
	lines [][]byte
	head  ledger.Head
	close ledger.Closed
	tied  map[string]bool // the snapshot's files the close recorded
}

// checkLedger re-runs the chain of the pack's ledger, finds the standing
// close of the bag's period in it, derives again the files the pack
// derives from the ledger and compares them, and checks the closed
// record against the close's hashes. Every payload file must be one of
// those, or of the snapshot's.
func checkLedger(top string, b bagInfo, payload map[string]hashed) (packLedger, error) {
	const path = "data/ledger/ledger.jsonl"
	lines, err := strictLines(path, payload[path].data)
	if err != nil {
		return packLedger{}, err
	}
	head, err := ledger.VerifyLines(path+" in the pack", lines)
	if err != nil {
		return packLedger{}, err
	}
	entries, err := ledger.ParseLines(path+" in the pack", lines)
	if err != nil {
		return packLedger{}, err
	}
	st := ledger.Fold(entries)
	period := b.fields["Billsnap-Period"]
	c, ok := st.ClosedPeriod(period)
	switch {
	case top != "billsnap-evidence-"+period:
		return packLedger{}, &MismatchError{What: "bag-info.txt", Why: fmt.Sprintf("Billsnap-Period %q is not the period of the bag's directory %s", period, top)}
	case !ok:
		return packLedger{}, &MismatchError{What: path, Why: "holds no standing close of period " + period}
	}
	for key, want := range map[string]string{"Billsnap-Close": c.ID, "Billsnap-Snapshot": c.Snapshot, "Billsnap-Ledger-Head": head.Hash} {
		if got := b.fields[key]; got != want {
			return packLedger{}, &MismatchError{What: "bag-info.txt", Why: fmt.Sprintf("%s is %q, and the pack's ledger says %q", key, got, want)}
		}
	}
	derived, err := ledgerFiles(lines, entries, st, c, head)
	if err != nil {
		return packLedger{}, err
	}
	for _, p := range slices.Sorted(maps.Keys(derived)) {
		got, ok := payload[p]
		if !ok {
			return packLedger{}, &MismatchError{What: p, Why: "missing from the pack"}
		}
		if want := sha(derived[p]); got.sum != want {
			return packLedger{}, &MismatchError{What: p, Why: fmt.Sprintf("not what the pack's chained ledger gives (SHA-256 %s, and derived again from the ledger %s): it was rewritten", got.sum, want)}
		}
	}
	tied, err := checkClosed(c, payload, derived)
	return packLedger{lines: lines, head: head, close: c, tied: tied}, err
}

// checkClosed checks the closed record's files against the hashes close
// c holds, and the snapshot's files against the close's copies of them
// when it recorded them (a close since billsnap recorded them: those
// are tied), and that the pack has no file besides those, the ledger's
// and the snapshot's. It gives the snapshot's files so tied.
func checkClosed(c ledger.Closed, payload map[string]hashed, derived map[string][]byte) (map[string]bool, error) {
	known := map[string]bool{}
	base := commonDir(c.Files)
	for _, f := range c.Files {
		p := "data/closed/" + strings.TrimPrefix(f.Path, base)
		got, ok := payload[p]
		if !ok {
			return nil, &MismatchError{What: p, Why: "close " + c.ID + " recorded it, and the pack has no such file"}
		}
		if got.sum != f.SHA256 {
			return nil, &MismatchError{What: p, Why: fmt.Sprintf("its SHA-256 is %s, and close %s in the ledger recorded %s", got.sum, c.ID, f.SHA256)}
		}
		known[p] = true
	}
	tied := map[string]bool{}
	for _, p := range snapshotFiles {
		recorded, ok := payload["data/closed/snapshot/"+path.Base(p)]
		got, has := payload[p]
		switch {
		case !has && (ok || p == snapshotFiles[0]):
			return nil, &MismatchError{What: p, Why: "missing from the pack"}
		case ok && got.sum != recorded.sum:
			return nil, &MismatchError{What: p, Why: fmt.Sprintf("its SHA-256 is %s, and close %s recorded %s: it was rewritten", got.sum, c.ID, recorded.sum)}
		}
		known[p], tied[p] = true, ok
	}
	for _, p := range slices.Sorted(maps.Keys(payload)) {
		if _, ok := derived[p]; !ok && !known[p] {
			return nil, &MismatchError{What: p, Why: "not a file billsnap packs, nor one close " + c.ID + " recorded"}
		}
	}
	return tied, nil
}

// strictLines splits a JSON-lines file written by billsnap: every line
// ends in "\n", none is empty or ends in "\r".
func strictLines(what string, data []byte) ([][]byte, error) {
	if len(data) == 0 {
		return nil, &MismatchError{What: what, Why: "empty"}
	}
	if !bytes.HasSuffix(data, []byte{'\n'}) {
		return nil, &MismatchError{What: what, Why: "its last line has no newline"}
	}
	var out [][]byte
	for l := range bytes.SplitSeq(data[:len(data)-1], []byte{'\n'}) {
		if len(l) == 0 || bytes.HasSuffix(l, []byte{'\r'}) {
			return nil, &MismatchError{What: fmt.Sprintf("%s line %d", what, len(out)+1), Why: "empty, or ending in CR: not as billsnap writes it"}
		}
		out = append(out, l)
	}
	return out, nil
}

// checkStoreLedger checks that the store's ledger still chains and begins
// with the pack's lines, byte for byte.
func checkStoreLedger(s *Against, lines [][]byte) error {
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
