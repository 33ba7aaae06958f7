package evidence

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"syscall"
	"unicode"

	"github.com/billsnap/billsnap/internal/fileutil"
)

// The bounds of what Verify reads, whatever the pack.
const (
	// MaxPayloadOctets is the largest payload a pack may declare in its
	// Payload-Oxum: 4 GiB.
	MaxPayloadOctets = 4 << 30
	// MaxMembers is the most members (files and directories) a pack may
	// hold.
	MaxMembers = 10_000
	// maxDirectory bounds the zip's central directory, which archive/zip
	// reads whole before anything else.
	maxDirectory = 4 << 20
	maxTagFile   = 4 << 20  // bagit.txt, bag-info.txt, the manifests
	maxLedger    = 32 << 20 // data/ledger/ledger.jsonl
	maxSmall     = 8 << 20  // data/snapshot/parquet-manifest.csv
)

// member is a file of the pack: its path under the bag's top directory.
type member struct {
	name string // as in the zip
	rel  string // under the top directory
	f    *zip.File
}

// openZip opens the zip at p, once its central directory is known to be
// small enough to read, and checks every member's name and kind: one top
// directory, no absolute path, no "..", no backslash, nothing that does
// not clean to itself, no duplicate (even by case), regular files only.
// It gives the zip, the top directory and the files by path.
func openZip(p string) (*zip.ReadCloser, string, map[string]member, error) {
	if err := checkDirectory(p); err != nil {
		return nil, "", nil, err
	}
	zr, err := zip.OpenReader(p)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, "", nil, fmt.Errorf("not a zip that billsnap reads: %w", err)
	}
	if len(zr.File) > MaxMembers {
		zr.Close()
		return nil, "", nil, &MismatchError{What: p, Why: fmt.Sprintf("%d members, more than the %d billsnap reads", len(zr.File), MaxMembers)}
	}
	top, files, err := checkMembers(zr.File)
	if err != nil {
		zr.Close()
		return nil, "", nil, err
	}
	return zr, top, files, nil
}

// checkMembers checks the names and kinds of the zip's members.
func checkMembers(all []*zip.File) (string, map[string]member, error) {
	files := map[string]member{}
	seen := map[string]string{}
	top := ""
	for i, f := range all {
		what := fmt.Sprintf("member %d %q", i+1, f.Name)
		bad := func(why string) (string, map[string]member, error) {
			return "", nil, &MismatchError{What: what, Why: why}
		}
		dir := strings.HasSuffix(f.Name, "/")
		name := strings.TrimSuffix(f.Name, "/")
		if why := badName(name); why != "" {
			return bad(why)
		}
		first, rest, _ := strings.Cut(name, "/")
		if top == "" {
			top = first
		}
		if first != top {
			return bad("outside the bag's one top directory " + top + "/")
		}
		if prev, ok := seen[strings.ToLower(name)]; ok {
			return bad("a second member of the name " + prev + ": zip tools disagree on which one counts")
		}
		seen[strings.ToLower(name)] = f.Name
		switch mode := f.Mode(); {
		case dir && (mode.IsDir() || mode.IsRegular()):
			continue
		case dir || !mode.IsRegular():
			return bad(fmt.Sprintf("not a regular file (mode %v): a pack holds files only", mode))
		case f.Flags&0x1 != 0:
			return bad("encrypted")
		case rest == "":
			return bad("a file where the bag's top directory should be")
		}
		files[rest] = member{name: f.Name, rel: rest, f: f}
	}
	if top == "" {
		return "", nil, &MismatchError{What: "the zip", Why: "empty: not a BagIt bag of billsnap's"}
	}
	return top, files, nil
}

// badName says what makes a member's name unsafe to unpack, or "".
func badName(name string) string {
	switch {
	case name == "":
		return "an empty name"
	case strings.HasPrefix(name, "/"):
		return "an absolute path"
	case strings.Contains(name, `\`):
		return "a backslash in its name"
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "a control character in its name"
	case len(name) > 1 && name[1] == ':':
		return "a drive letter in its name"
	case path.Clean(name) != name || strings.HasPrefix(name, "../") || name == ".." || name == ".":
		return "a path that does not clean to itself (\"..\", \".\" or \"//\" in it)"
	}
	return ""
}

// checkDirectory refuses a zip whose central directory, as archive/zip
// would read it, spans more than maxDirectory bytes: the count of members
// is read from the end record before any member is.
func checkDirectory(p string) error {
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return errors.Join(err, notRegular(st)) // a FIFO would block the open
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return errors.Join(err, notRegular(st))
	}
	size := st.Size()
	end, dirSize, dirOffset, ok := directoryEnd(f, size)
	if !ok {
		return nil // not a zip: archive/zip says so
	}
	start := min(max(end-dirSize, 0), max(dirOffset, 0))
	if span := size - start; span > maxDirectory {
		return &MismatchError{What: p, Why: fmt.Sprintf("its zip directory spans %d bytes, more than the %d billsnap reads", span, maxDirectory)}
	}
	return nil
}

// notRegular is the error of a pack that is not a regular file, or nil.
func notRegular(st os.FileInfo) error {
	if st == nil || st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("not a regular file (%v): a pack is a zip file", st.Mode())
}

// directoryEnd finds the zip's end of central directory as archive/zip
// does (the last signature whose comment fits), and gives its offset and
// the directory's declared size and offset, from the zip64 record when
// there is one.
func directoryEnd(f io.ReaderAt, size int64) (end, dirSize, dirOffset int64, ok bool) {
	const endLen = 22
	n := min(size, endLen+65535)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return 0, 0, 0, false
	}
	for i := len(buf) - endLen; i >= 0; i-- {
		if string(buf[i:i+4]) != "PK\x05\x06" || i+endLen+int(binary.LittleEndian.Uint16(buf[i+20:])) > len(buf) {
			continue
		}
		b := buf[i:]
		end = size - n + int64(i)
		dirSize, dirOffset = int64(binary.LittleEndian.Uint32(b[12:])), int64(binary.LittleEndian.Uint32(b[16:]))
		if binary.LittleEndian.Uint16(b[10:]) == 0xffff || dirSize == 0xffff || dirOffset == 0xffffffff {
			return zip64End(f, end)
		}
		return end, dirSize, dirOffset, true
	}
	return 0, 0, 0, false
}

// zip64End reads the zip64 end record the locator before end points at.
func zip64End(f io.ReaderAt, end int64) (int64, int64, int64, bool) {
	var loc [20]byte
	if end < 20 {
		return 0, 0, 0, false
	}
	if _, err := f.ReadAt(loc[:], end-20); err != nil || string(loc[:4]) != "PK\x06\x07" {
		return 0, 0, 0, false
	}
	at := int64(binary.LittleEndian.Uint64(loc[8:]))
	var r [56]byte
	if _, err := f.ReadAt(r[:], at); at < 0 || err != nil || string(r[:4]) != "PK\x06\x06" {
		return 0, 0, 0, false
	}
	return at, int64(binary.LittleEndian.Uint64(r[40:])), int64(binary.LittleEndian.Uint64(r[48:])), true
}

// hashed is a member read through its hash: its SHA-256, its size, and
// its bytes when they were kept.
type hashed struct {
	sum  string
	size int64
	data []byte
}

// readMember streams m through SHA-256, reading at most budget bytes of
// it (more is refused), and keeps its bytes when keep > 0, refusing a
// member larger than keep. ctx stops it.
func readMember(ctx context.Context, m member, budget, keep int64) (hashed, error) {
	bad := func(why string) (hashed, error) { return hashed{}, &MismatchError{What: m.rel, Why: why} }
	if keep > 0 && m.f.UncompressedSize64 > uint64(keep) {
		return bad(fmt.Sprintf("%d bytes, more than the %d billsnap reads of it", m.f.UncompressedSize64, keep))
	}
	if m.f.UncompressedSize64 > uint64(max(budget, 0)) {
		return bad(fmt.Sprintf("%d bytes, more than the bag's Payload-Oxum leaves for it (%d)", m.f.UncompressedSize64, max(budget, 0)))
	}
	rc, err := m.f.Open()
	if err != nil {
		return bad("cannot be read: " + err.Error())
	}
	defer rc.Close()
	h := sha256.New()
	var kept bytes.Buffer
	w := io.Writer(h)
	if keep > 0 {
		w = io.MultiWriter(h, &kept)
	}
	n, err := io.Copy(w, io.LimitReader(fileutil.ContextReader(ctx, rc), int64(m.f.UncompressedSize64)+1))
	switch {
	case ctx.Err() != nil:
		return hashed{}, fmt.Errorf("%s: %w", m.rel, context.Cause(ctx))
	case errors.Is(err, zip.ErrFormat) || n > int64(m.f.UncompressedSize64):
		return bad(fmt.Sprintf("its data is not what its zip header declares (%d bytes, and its CRC-32)", m.f.UncompressedSize64))
	case err != nil:
		return bad("cannot be read: " + err.Error())
	}
	return hashed{sum: hex.EncodeToString(h.Sum(nil)), size: n, data: kept.Bytes()}, nil
}
