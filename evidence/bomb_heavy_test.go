//go:build heavy

package evidence

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A zip bomb, a member of zeros of 1 GiB and more in a zip of a few MB,
// is refused within 20 s and 300 MB of peak RSS: by the Payload-Oxum
// before it is read, by the ceiling on the Payload-Oxum, or, when the
// forger declared it within the ceiling, once streamed through its hash
// (it is then not a file billsnap packs).
func TestAZipBombIsRefusedInBoundedMemory(t *testing.T) {
	fx := newFixture(t)
	for _, c := range []struct {
		name string
		gib  int64
		oxum bool // the Payload-Oxum counts the bomb
		want string
	}{
		{"1 GiB, the Payload-Oxum as packed", 1, false, "Payload-Oxum"},
		{"1 GiB, the Payload-Oxum counting it", 1, true, "data/closed/bomb: not a file billsnap packs"},
		{"3 GiB, the Payload-Oxum counting it", 3, true, "data/closed/bomb: not a file billsnap packs"},
		{"8 GiB, the Payload-Oxum counting it", 8, true, "declares more than billsnap reads"},
	} {
		pack := bombPack(t, fx.pack, c.gib<<30, c.oxum)
		start := time.Now()
		_, err := verifyBytes(t, context.Background(), pack, nil)
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: want %q, got %v", c.name, c.want, err)
		}
		hwm := peakRSS(t)
		t.Logf("%s: a zip of %d bytes refused in %v, peak RSS %d MB: %v", c.name, len(pack), took.Round(time.Millisecond), hwm>>20, err)
		if took > 20*time.Second || hwm > 300<<20 {
			t.Fatalf("%s: %v and %d MB", c.name, took, hwm>>20)
		}
	}
}

// bombPack is the genuine pack with data/closed/bomb, n zeros, added
// and the manifests recomputed; with oxum, the Payload-Oxum counts it.
func bombPack(t *testing.T, genuine []byte, n int64, oxum bool) []byte {
	top, b := unpack(t, genuine)
	info := b["bag-info.txt"]
	b["data/closed/bomb"] = nil
	b.rebag()
	sum, crc := zeros(n)
	var m strings.Builder
	for _, p := range slices.Sorted(maps.Keys(b)) {
		switch {
		case p == "data/closed/bomb":
			fmt.Fprintf(&m, "%s  %s\n", sum, p)
		case strings.HasPrefix(p, "data/"):
			fmt.Fprintf(&m, "%s  %s\n", sha(b[p]), p)
		}
	}
	b["manifest-sha256.txt"] = []byte(m.String())
	if oxum {
		octets, count := oxumOf(t, b["bag-info.txt"])
		b["bag-info.txt"] = bytes.Replace(b["bag-info.txt"], []byte(fmt.Sprintf("%d.%d", octets, count)), []byte(fmt.Sprintf("%d.%d", octets+n, count)), 1)
	} else {
		b["bag-info.txt"] = info
	}
	b.retag()
	delete(b, "data/closed/bomb")
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, p := range slices.Sorted(maps.Keys(b)) {
		w, _ := zw.Create(top + "/" + p)
		w.Write(b[p])
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: top + "/data/closed/bomb", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(deflatedZerosLen(n)), UncompressedSize64: uint64(n)})
	if err != nil {
		t.Fatal(err)
	}
	writeDeflatedZeros(w, n)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func oxumOf(t *testing.T, info []byte) (int64, int64) {
	_, v, _ := strings.Cut(string(info), "Payload-Oxum: ")
	o, c, _ := strings.Cut(strings.TrimSpace(v), ".")
	octets, err1 := strconv.ParseInt(o, 10, 64)
	count, err2 := strconv.ParseInt(c, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("Payload-Oxum %q", v)
	}
	return octets, count
}

// zeros is the SHA-256 and CRC-32 of n zero bytes.
func zeros(n int64) (string, uint32) {
	h, c := sha256.New(), crc32.NewIEEE()
	io.CopyN(io.MultiWriter(h, c), zeroReader{}, n)
	return hex.EncodeToString(h.Sum(nil)), c.Sum32()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// deflated zeros are made of one block of the first MiB, then one block
// repeated for each further MiB (the window then holds zeros only, so
// each such block is the same), then the final empty block.
const mib = 1 << 20

func zeroBlocks() (first, next, last []byte) {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	z := make([]byte, mib)
	w.Write(z)
	w.Flush()
	first = bytes.Clone(b.Bytes())
	b.Reset()
	w.Write(z)
	w.Flush()
	next = bytes.Clone(b.Bytes())
	b.Reset()
	w.Close()
	return first, next, bytes.Clone(b.Bytes())
}

func deflatedZerosLen(n int64) int64 {
	first, next, last := zeroBlocks()
	return int64(len(first)) + (n/mib-1)*int64(len(next)) + int64(len(last))
}

func writeDeflatedZeros(w io.Writer, n int64) {
	first, next, last := zeroBlocks()
	w.Write(first)
	for i := int64(1); i < n/mib; i++ {
		w.Write(next)
	}
	w.Write(last)
}

// peakRSS is the process's peak resident set so far (VmHWM).
func peakRSS(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
