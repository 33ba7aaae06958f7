package evidence

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/ledger"
)

// The genuine pack verifies by itself (the snapshot's manifest then said
// to be untied) and against its store (then nothing is untied).
func TestTheGenuinePackVerifies(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	v, err := verifyBytes(t, context.Background(), fx.pack, nil)
	if err != nil || v.Entries != 3 || v.Files != 8 || !slices.Equal(v.Untied, []string{"data/snapshot/parquet-manifest.csv"}) {
		t.Fatalf("alone: %+v %v", v, err)
	}
	v, err = verifyBytes(t, context.Background(), fx.pack, fx.store)
	if err != nil || !v.Store || v.Parquet != 1 || len(v.Untied) != 0 {
		t.Fatalf("with the store: %+v %v", v, err)
	}
}

// hostile is a pack made from the genuine one, and what its refusal must
// name.
type hostile struct {
	name  string
	make  func(t testing.TB, top string, b bagFiles) []byte
	store bool // checked against the store
	want  string
}

// hostilePacks are the attacks of issue 45 on verify: each pack has its
// manifests recomputed, as a forger would.
var hostilePacks = []hostile{
	{"a doctored first copy of a member", func(t testing.TB, top string, b bagFiles) []byte {
		return zipOf(t, top, b, []raw{{name: top + "/data/closed/findings.csv", data: []byte("rule,entity_id\n")}}, nil)
	}, false, `"billsnap-evidence-2026-10/data/closed/findings.csv": a second member`},
	{"the same member by another case", func(t testing.TB, top string, b bagFiles) []byte {
		return zipOf(t, top, b, nil, []raw{{name: top + "/data/closed/FINDINGS.csv"}})
	}, false, "a second member"},
	{"a member climbing out", func(t testing.TB, top string, b bagFiles) []byte {
		return zipOf(t, top, b, nil, []raw{{name: top + "/data/../../../x", data: []byte("x")}})
	}, false, "does not clean to itself"},
	{"an absolute path first", func(t testing.TB, top string, b bagFiles) []byte {
		return zipOf(t, top, b, []raw{{name: "/tmp/x", data: []byte("x")}}, nil)
	}, false, "an absolute path"},
	{"a backslash", func(t testing.TB, top string, b bagFiles) []byte {
		return zipOf(t, top, b, nil, []raw{{name: top + `/data\..\..\x`, data: []byte("x")}})
	}, false, "a backslash"},
	{"a second top directory", func(t testing.TB, top string, b bagFiles) []byte {
		return zipOf(t, top, b, nil, []raw{{name: "other/data/x", data: []byte("x")}})
	}, false, "outside the bag's one top directory"},
	{"a symlink, listed in the manifest", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/closed/link"] = []byte("/etc/passwd")
		data := b.rebag()["data/closed/link"]
		delete(b, "data/closed/link")
		return zipOf(t, top, b, nil, []raw{{name: top + "/data/closed/link", data: data, hdr: func(h *zip.FileHeader) { h.SetMode(os.ModeSymlink | 0o777) }}})
	}, false, "not a regular file"},
	{"a device", func(t testing.TB, top string, b bagFiles) []byte {
		return zipOf(t, top, b, nil, []raw{{name: top + "/data/dev", hdr: func(h *zip.FileHeader) { h.SetMode(os.ModeDevice | 0o644) }}})
	}, false, "not a regular file"},
	{"a payload file not in the manifest", func(t testing.TB, top string, b bagFiles) []byte {
		return zipOf(t, top, b, nil, []raw{{name: top + "/data/extra.txt", data: []byte("x")}})
	}, false, "data/extra.txt: in the pack but not in manifest-sha256.txt"},
	{"a payload file listed and absent", func(t testing.TB, top string, b bagFiles) []byte {
		b["manifest-sha256.txt"] = append(b["manifest-sha256.txt"], []byte(sha(nil)+"  data/gone.txt\n")...)
		return zipOf(t, top, b.retag(), nil, nil)
	}, false, "data/gone.txt: listed in manifest-sha256.txt but not in the pack"},
	{"a manifest listing a path twice", func(t testing.TB, top string, b bagFiles) []byte {
		b.rebag()
		line := bytes.SplitAfter(b["manifest-sha256.txt"], []byte("\n"))[0]
		b["manifest-sha256.txt"] = append(b["manifest-sha256.txt"], line...)
		return zipOf(t, top, b.retag(), nil, nil)
	}, false, "listed a second time"},
	{"a tag file besides the bag's", func(t testing.TB, top string, b bagFiles) []byte {
		b["evil.txt"] = []byte("x")
		return zipOf(t, top, b, nil, nil)
	}, false, "evil.txt: not a file of the bag"},
	{"a payload file billsnap does not pack", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/closed/extra.csv"] = []byte("=cmd\n")
		return zipOf(t, top, b.rebag(), nil, nil)
	}, false, "data/closed/extra.csv: not a file billsnap packs"},
	{"signoffs.json rewritten", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/signoffs.json"] = bytes.Replace(b["data/signoffs.json"], []byte(`"Dana"`), []byte(`"Mallory"`), 1)
		return zipOf(t, top, b.rebag(), nil, nil)
	}, false, "data/signoffs.json: not what the pack's chained ledger gives"},
	{"waivers.json rewritten", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/waivers.json"] = []byte("[]\n")
		return zipOf(t, top, b.rebag(), nil, nil)
	}, false, "data/waivers.json: not what the pack's chained ledger gives"},
	{"close.json rewritten", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/close.json"] = bytes.Replace(b["data/close.json"], []byte(`"findings": 1`), []byte(`"findings": 0`), 1)
		return zipOf(t, top, b.rebag(), nil, nil)
	}, false, "data/close.json: not what the pack's chained ledger gives"},
	{"period.jsonl cut", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/ledger/period.jsonl"] = bytes.SplitAfter(b["data/ledger/period.jsonl"], []byte("\n"))[0]
		return zipOf(t, top, b.rebag(), nil, nil)
	}, false, "data/ledger/period.jsonl: not what the pack's chained ledger gives"},
	{"bag-info.txt naming another close", func(t testing.TB, top string, b bagFiles) []byte {
		b["bag-info.txt"] = bytes.Replace(b["bag-info.txt"], []byte("Billsnap-Close: C3"), []byte("Billsnap-Close: C9"), 1)
		return zipOf(t, top, b.retag(), nil, nil)
	}, false, `Billsnap-Close is "C9"`},
	{"tables.json added", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/snapshot/tables.json"] = []byte(`{"snapshot_id": "SNAP1", "tables": []}` + "\n")
		return zipOf(t, top, b.rebag(), nil, nil)
	}, false, "untied: data/snapshot/parquet-manifest.csv data/snapshot/tables.json"},
	{"the Parquet manifest emptied", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/snapshot/parquet-manifest.csv"] = []byte("path,bytes,sha256\n")
		return zipOf(t, top, b.rebag(), nil, nil)
	}, true, "parquet/invoices/snapshot_id=SNAP1/part-0.parquet: a Parquet file of snapshot SNAP1 in the store, and data/snapshot/parquet-manifest.csv does not list it"},
	{"the Parquet manifest naming ../../../../etc/hostname", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/snapshot/parquet-manifest.csv"] = []byte("path,bytes,sha256\n../../../../etc/hostname,1," + sha(nil) + "\n")
		return zipOf(t, top, b.rebag(), nil, nil)
	}, true, `"../../../../etc/hostname" is not the path of a Parquet file`},
	{"the Parquet manifest naming /dev/zero", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/snapshot/parquet-manifest.csv"] = []byte("path,bytes,sha256\n/dev/zero,1," + sha(nil) + "\n")
		return zipOf(t, top, b.rebag(), nil, nil)
	}, true, `"/dev/zero" is not the path of a Parquet file`},
	{"the Parquet manifest naming a file of the store outside the snapshot", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/snapshot/parquet-manifest.csv"] = []byte("path,bytes,sha256\nparquet/invoices/snapshot_id=SNAP1/../../../ledger.jsonl.parquet,1," + sha(nil) + "\n")
		return zipOf(t, top, b.rebag(), nil, nil)
	}, true, "does not clean to itself"},
	{"more bytes than the Payload-Oxum", func(t testing.TB, top string, b bagFiles) []byte {
		oxum := b["bag-info.txt"]
		b["data/closed/findings.csv"] = make([]byte, 10<<20)
		b.rebag()
		b["bag-info.txt"] = oxum
		return zipOf(t, top, b.retag(), nil, nil)
	}, false, "bag-info.txt: Payload-Oxum"},
	{"a Payload-Oxum beyond the ceiling", func(t testing.TB, top string, b bagFiles) []byte {
		b["bag-info.txt"] = bytes.Replace(b["bag-info.txt"], []byte("Payload-Oxum: "), []byte("Payload-Oxum: 99999999999"), 1)
		return zipOf(t, top, b.retag(), nil, nil)
	}, false, "declares more than billsnap reads"},
	{"a member longer than its header says", func(t testing.TB, top string, b bagFiles) []byte {
		return lyingSize(t, zipOf(t, top, b, nil, nil), top+"/data/closed/findings.csv")
	}, false, "data/closed/findings.csv: its data is not what its zip header declares"},
	{"a chained entry with nothing in it", func(t testing.TB, top string, b bagFiles) []byte {
		b["data/ledger/ledger.jsonl"] = rechain(b["data/ledger/ledger.jsonl"], func(l []byte) []byte {
			return bytes.Replace(l, []byte(`"action":"waive","waiver":{`), []byte(`"action":"waive","x":{`), 1)
		})
		return zipOf(t, top, b.rebag(), nil, nil)
	}, false, `data/ledger/ledger.jsonl in the pack: line 1 (seq 1) is not a valid entry: a waive entry without its waiver`},
	{"the ledger re-chained with a sign-off rewritten, and all derived again", func(t testing.TB, top string, b bagFiles) []byte {
		swap := func(l []byte) []byte { return bytes.ReplaceAll(l, []byte(`Dana`), []byte(`Mall`)) }
		b["data/ledger/ledger.jsonl"] = rechain(b["data/ledger/ledger.jsonl"], swap)
		lines := bytes.SplitAfter(b["data/ledger/ledger.jsonl"], []byte("\n"))
		b["data/ledger/period.jsonl"] = b["data/ledger/ledger.jsonl"] // the waiver in force, the sign-off, the close
		b["data/signoffs.json"] = swap(b["data/signoffs.json"])
		head := lastHash(lines[len(lines)-2])
		for _, f := range []string{"bag-info.txt", "data/close.json"} {
			b[f] = headRe.ReplaceAll(b[f], []byte("${1}"+head))
		}
		return zipOf(t, top, b.rebag(), nil, nil)
	}, true, "the store's ledger"},
}

// Every hostile pack is refused, naming what is wrong.
func TestHostilePacksAreRefused(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	for _, h := range hostilePacks {
		t.Run(h.name, func(t *testing.T) {
			top, b := unpack(t, fx.pack)
			var store *Against
			if h.store {
				store = fx.store
			}
			v, err := verifyBytes(t, context.Background(), h.make(t, top, b), store)
			if strings.HasPrefix(h.want, "untied: ") {
				if got := "untied: " + strings.Join(v.Untied, " "); err != nil || got != h.want {
					t.Fatalf("%v; %s", err, got)
				}
				return
			}
			var m *MismatchError
			if err == nil || !strings.Contains(err.Error(), h.want) || !errors.As(err, &m) && !strings.Contains(err.Error(), "ledger") {
				t.Fatalf("want an error naming %q, got %v", h.want, err)
			}
		})
	}
}

// lyingSize rewrites the central directory's uncompressed size of member
// name, and its local header's, to one byte less than the data holds.
func lyingSize(t testing.TB, pack []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pack), int64(len(pack)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		var size [4]byte
		le32(size[:], uint32(f.UncompressedSize64))
		var less [4]byte
		le32(less[:], uint32(f.UncompressedSize64-1))
		crc := make([]byte, 4)
		le32(crc, f.CRC32)
		// The size follows the CRC-32 and the compressed size in both
		// headers: replace it where it follows this member's CRC-32.
		return bytes.ReplaceAll(pack, append(append(crc, compressed(f)...), size[:]...), append(append(crc, compressed(f)...), less[:]...))
	}
	t.Fatalf("no member %s", name)
	return nil
}

func compressed(f *zip.File) []byte {
	b := make([]byte, 4)
	le32(b, uint32(f.CompressedSize64))
	return b
}

func le32(b []byte, v uint32) { b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24) }

// A Parquet file of the store that is a symlink (here to /dev/zero) or a
// FIFO is refused, not read.
func TestTheStoresParquetMustBeRegularFiles(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"symlink", "fifo"} {
		fx := newFixture(t)
		p := filepath.Join(fx.store.ParquetDir, "invoices", "snapshot_id=SNAP1", "part-0.parquet")
		os.Remove(p)
		if kind == "symlink" {
			os.Symlink("/dev/zero", p)
		} else if err := mkfifo(p); err != nil {
			t.Fatal(err)
		}
		_, err := verifyBytes(t, context.Background(), fx.pack, fx.store)
		if err == nil || !strings.Contains(err.Error(), "part-0.parquet") {
			t.Fatalf("%s: %v", kind, err)
		}
	}
}

// A pack that is a FIFO, a directory or a device is refused at once, not
// waited on.
func TestAPackMustBeARegularFile(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "pack.zip")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, t.TempDir(), "/dev/zero"} {
		if _, err := Verify(context.Background(), p, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("%s: %v", p, err)
		}
	}
}

// A cancelled verify, or one past its deadline, stops, saying why.
func TestVerifyStopsWithItsContext(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := verifyBytes(t, ctx, fx.pack, fx.store); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	if _, err := verifyBytes(t, ctx, fx.pack, fx.store); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("past its deadline: got %v", err)
	}
}

// hashRe matches the chain's fields at the end of a ledger line.
var hashRe = regexp.MustCompile(`,"prev":"[0-9a-f]{64}","hash":"[0-9a-f]{64}"}$`)

// headRe matches the ledger's head in bag-info.txt and close.json.
var headRe = regexp.MustCompile(`(Billsnap-Ledger-Head: |"Hash": ")[0-9a-f]{64}`)

// rechain edits every line of a ledger and seals them again, as a forger
// who knows the chain's rule would.
func rechain(data []byte, edit func([]byte) []byte) []byte {
	var out []byte
	prev := ledger.Genesis
	for l := range bytes.SplitSeq(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		body := hashRe.ReplaceAll(edit(l), []byte(`,"prev":"`+prev+`"}`))
		sum := sha(body)
		out = append(append(append(out, body[:len(body)-1]...), `,"hash":"`+sum+`"}`...), '\n')
		prev = sum
	}
	return out
}

func lastHash(line []byte) string {
	l := bytes.TrimSuffix(line, []byte("\n"))
	return string(l[len(l)-66 : len(l)-2])
}
