package evidence

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// bagitTxt is the one bagit.txt billsnap writes.
const bagitTxt = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"

// tagFiles are the files of the bag outside data/.
var tagFiles = []string{"bagit.txt", "bag-info.txt", "manifest-sha256.txt", "tagmanifest-sha256.txt"}

// bagInfo is what the bag's tag files say: bag-info.txt's fields, its
// Payload-Oxum, and manifest-sha256.txt's SHA-256 of each payload path.
type bagInfo struct {
	fields   map[string]string
	octets   int64
	count    int
	manifest map[string]string
}

// readBag reads and checks the tag files: present, within maxTagFile,
// as tagmanifest-sha256.txt hashes them; a Payload-Oxum within the
// bounds; manifest-sha256.txt listing each path once.
func readBag(ctx context.Context, members map[string]member) (bagInfo, error) {
	tags := map[string]hashed{}
	for _, t := range tagFiles {
		m, ok := members[t]
		if !ok {
			return bagInfo{}, &MismatchError{What: t, Why: "missing: not a BagIt bag of billsnap's"}
		}
		h, err := readMember(ctx, m, maxTagFile, maxTagFile)
		if err != nil {
			return bagInfo{}, err
		}
		tags[t] = h
	}
	for _, p := range slices.Sorted(maps.Keys(members)) {
		if !strings.HasPrefix(p, "data/") && !slices.Contains(tagFiles, p) {
			return bagInfo{}, &MismatchError{What: p, Why: "not a file of the bag: outside data/ and not a tag file"}
		}
	}
	listed, err := parseManifest("tagmanifest-sha256.txt", tags["tagmanifest-sha256.txt"].data)
	if err != nil {
		return bagInfo{}, err
	}
	for _, t := range tagFiles[:3] {
		if listed[t] == "" {
			return bagInfo{}, &MismatchError{What: t, Why: "not listed in tagmanifest-sha256.txt"}
		}
		if got := tags[t].sum; got != listed[t] {
			return bagInfo{}, &MismatchError{What: t, Why: fmt.Sprintf("its SHA-256 is %s, and tagmanifest-sha256.txt says %s: the file, or that line, was changed", got, listed[t])}
		}
	}
	if len(listed) != 3 {
		return bagInfo{}, &MismatchError{What: "tagmanifest-sha256.txt", Why: "lists more than bagit.txt, bag-info.txt and manifest-sha256.txt"}
	}
	if string(tags["bagit.txt"].data) != bagitTxt {
		return bagInfo{}, &MismatchError{What: "bagit.txt", Why: "not BagIt 1.0 in UTF-8 as billsnap declares it"}
	}
	b, err := parseBagInfo(tags["bag-info.txt"].data)
	if err != nil {
		return bagInfo{}, err
	}
	b.manifest, err = parseManifest("manifest-sha256.txt", tags["manifest-sha256.txt"].data)
	return b, err
}

// parseManifest reads a BagIt manifest: lines of "SHA-256  path", each
// path once, clean, a payload path in manifest-sha256.txt and a tag file
// in the tag manifest.
func parseManifest(name string, data []byte) (map[string]string, error) {
	out := map[string]string{}
	if len(data) == 0 {
		return out, nil
	}
	lines, err := strictLines(name, data)
	for n, l := range lines {
		what := fmt.Sprintf("%s line %d", name, n+1)
		sum, p, ok := strings.Cut(string(l), "  ")
		switch {
		case !ok || !isSHA256(sum):
			return nil, &MismatchError{What: what, Why: "not \"SHA-256  path\""}
		case badName(p) != "" || strings.HasPrefix(p, "data/") != (name == "manifest-sha256.txt"):
			return nil, &MismatchError{What: what, Why: fmt.Sprintf("%q is not a path this manifest may list", p)}
		case out[p] != "":
			return nil, &MismatchError{What: what, Why: p + " listed a second time"}
		}
		out[p] = sum
	}
	return out, err
}

// isSHA256 tells whether s is a SHA-256 in lower-case hex.
func isSHA256(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// parseBagInfo reads bag-info.txt's "Key: value" lines and its
// Payload-Oxum, within MaxPayloadOctets and MaxMembers.
func parseBagInfo(data []byte) (bagInfo, error) {
	lines, err := strictLines("bag-info.txt", data)
	if err != nil {
		return bagInfo{}, err
	}
	b := bagInfo{fields: map[string]string{}}
	for n, l := range lines {
		k, v, ok := strings.Cut(string(l), ": ")
		if !ok || b.fields[k] != "" {
			return bagInfo{}, &MismatchError{What: fmt.Sprintf("bag-info.txt line %d", n+1), Why: "not \"Key: value\", or a key given twice"}
		}
		b.fields[k] = v
	}
	bad := func(why string) (bagInfo, error) { return bagInfo{}, &MismatchError{What: "bag-info.txt", Why: why} }
	octets, count, ok := strings.Cut(b.fields["Payload-Oxum"], ".")
	o, err1 := strconv.ParseInt(octets, 10, 64)
	c, err2 := strconv.Atoi(count)
	switch {
	case !ok || errors.Join(err1, err2) != nil || o < 0 || c < 0:
		return bad(fmt.Sprintf("Payload-Oxum %q: want octets.files", b.fields["Payload-Oxum"]))
	case o > MaxPayloadOctets || c > MaxMembers:
		return bad(fmt.Sprintf("Payload-Oxum %s declares more than billsnap reads (%d bytes, %d files)", b.fields["Payload-Oxum"], MaxPayloadOctets, MaxMembers))
	}
	b.octets, b.count = o, c
	return b, nil
}

// hashPayload streams every payload file through SHA-256 against
// manifest-sha256.txt, both ways (a file listed and missing, or present
// and not listed, differs too), reading no more than the Payload-Oxum
// declares: more bytes or files than it says are refused before they are
// read. It keeps the bytes of the two files Verify parses.
func hashPayload(ctx context.Context, members map[string]member, b bagInfo) (map[string]hashed, error) {
	var paths []string
	var declared uint64
	for _, p := range slices.Sorted(maps.Keys(members)) {
		if strings.HasPrefix(p, "data/") {
			if b.manifest[p] == "" {
				return nil, &MismatchError{What: p, Why: "in the pack but not in manifest-sha256.txt"}
			}
			paths = append(paths, p)
			declared += members[p].f.UncompressedSize64
		}
	}
	for _, p := range slices.Sorted(maps.Keys(b.manifest)) {
		if _, ok := members[p]; !ok {
			return nil, &MismatchError{What: p, Why: "listed in manifest-sha256.txt but not in the pack"}
		}
	}
	if len(paths) != b.count || declared > uint64(b.octets) {
		return nil, &MismatchError{What: "bag-info.txt", Why: fmt.Sprintf("Payload-Oxum %d.%d, and the pack's members declare %d bytes in %d files", b.octets, b.count, declared, len(paths))}
	}
	keep := map[string]int64{"data/ledger/ledger.jsonl": maxLedger, "data/snapshot/parquet-manifest.csv": maxSmall}
	out := map[string]hashed{}
	var total int64
	for _, p := range paths {
		h, err := readMember(ctx, members[p], b.octets-total, keep[p])
		if err != nil {
			return nil, err
		}
		if h.sum != b.manifest[p] {
			return nil, &MismatchError{What: p, Why: fmt.Sprintf("its SHA-256 is %s, and manifest-sha256.txt says %s: the file, or that line, was changed", h.sum, b.manifest[p])}
		}
		total += h.size
		out[p] = h
	}
	if total != b.octets {
		return nil, &MismatchError{What: "bag-info.txt", Why: fmt.Sprintf("Payload-Oxum says %d bytes, and the payload holds %d", b.octets, total)}
	}
	return out, nil
}
