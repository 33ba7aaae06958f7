package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"time"
)

// The ledger is a hash chain, as Certificate Transparency's log and git's
// history are: each line ends with "prev", the hash of the line before it
// (Genesis for the first), and then "hash", the SHA-256 of the line's own
// bytes up to that field, with the closing brace:
//
//	{"seq":2,…,"prev":"<hash of line 1>","hash":"<sha256 of `{"seq":2,…,"prev":"…"}`>"}
//
// So a line changed in any byte no longer hashes to its "hash", and a line
// given a new "hash" to match no longer fits the "prev" of the line after
// it. The chain covers the bytes as written: verifying needs no JSON
// encoder, and anyone can check it with sha256sum and a text editor. The
// newest line has no line after it; its hash is what a copy kept
// elsewhere (an evidence pack, a note of the head) anchors.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// hashTail matches the end of a chained line: its "hash" field.
var hashTail = regexp.MustCompile(`,"hash":"([0-9a-f]{64})"}$`)

// seal gives body (a JSON object ending in "prev") its "hash".
func seal(body []byte) []byte {
	sum := sha256.Sum256(body)
	out := append([]byte{}, body[:len(body)-1]...)
	return append(out, `,"hash":"`+hex.EncodeToString(sum[:])+`"}`...)
}

// link is a line as it stands in the chain: the hash it carries, the
// hash of the line before it that it names, and its sequence number.
type link struct {
	Seq  int    `json:"seq"`
	Prev string `json:"prev"`
	Hash string `json:"hash"`
}

// BrokenError is a ledger whose chain does not hold: the first line that
// does not fit, and why.
type BrokenError struct {
	Path string
	Line int // 1-based
	Seq  int // the line's sequence number, 0 when it could not be read
	Why  string
}

func (e *BrokenError) Error() string {
	at := fmt.Sprintf("line %d", e.Line)
	if e.Seq > 0 {
		at += fmt.Sprintf(" (seq %d)", e.Seq)
	}
	return fmt.Sprintf("ledger %s: %s does not fit the chain: %s", e.Path, at, e.Why)
}

// Head is what a verified chain comes to: its entries and the hash of
// its newest line (Genesis when it is empty); from Ledger.Verify, also
// the head recorded outside the ledger (nil when none is yet) and how
// many lines come after it (a write cut short before its head was
// recorded).
type Head struct {
	Entries int
	Hash    string
	Mark    *Mark
	Ahead   int
}

// VerifyLines checks the chain of lines (path names them in errors): each
// line hashes to its "hash", names the line before in its "prev", and
// numbers itself one past it. It returns the first line that does not fit
// as a *BrokenError.
func VerifyLines(path string, lines [][]byte) (Head, error) {
	if b := verifyFrom(path, lines, 0, Genesis, 0); b != nil {
		return Head{}, b
	}
	head := Head{Entries: len(lines), Hash: Genesis}
	if len(lines) > 0 {
		head.Hash = lastHash(lines[len(lines)-1])
	}
	return head, nil
}

// verifyFrom checks the chain of lines, the first of them line first+1
// of the file, coming after a line of hash prev and seq prevSeq (Genesis
// and 0 at the start). It gives the first line that does not fit, nil
// when all do.
func verifyFrom(path string, lines [][]byte, first int, prev string, prevSeq int) *BrokenError {
	for i, line := range lines {
		var l link
		if err := json.Unmarshal(line, &l); err != nil {
			return &BrokenError{Path: path, Line: first + i + 1, Why: fmt.Sprintf("not a JSON entry: %v", err)}
		}
		if why := misfit(line, l, prev, prevSeq, first+i > 0); why != "" {
			return &BrokenError{Path: path, Line: first + i + 1, Seq: l.Seq, Why: why}
		}
		prev, prevSeq = l.Hash, l.Seq
	}
	return nil
}

// misfit says why line, read as l, does not fit after a line of hash prev
// and seq prevSeq ("" when it fits); follows tells whether a line comes
// before it.
func misfit(line []byte, l link, prev string, prevSeq int, follows bool) string {
	m := hashTail.FindSubmatch(line)
	switch {
	case bytes.HasSuffix(line, []byte{'\r'}):
		return "it ends in CR LF, not LF: its bytes are not those written"
	case l.Hash == "" && l.Prev == "":
		return "it carries no chain hash (a ledger from before the chain: billsnap ledger chain chains it)"
	case m == nil || string(m[1]) != l.Hash:
		return `its "hash" is not the line's last field`
	case sealedHash(line, len(m[0])) != l.Hash:
		return fmt.Sprintf("its bytes do not hash to its \"hash\" %s: the line was changed after it was written", short(l.Hash))
	case l.Prev != prev:
		return fmt.Sprintf("its \"prev\" %s is not the hash of the line before it, %s: a line was removed, inserted or rewritten", short(l.Prev), short(prev))
	case follows && l.Seq != prevSeq+1:
		return fmt.Sprintf("its seq follows %d", prevSeq)
	}
	return ""
}

// sealedHash is the SHA-256 of line without its hash field of tail bytes.
func sealedHash(line []byte, tail int) string {
	body := append(append([]byte{}, line[:len(line)-tail]...), '}')
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

func lastSeq(line []byte) int {
	var l link
	_ = json.Unmarshal(line, &l)
	return l.Seq
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// Verify checks the ledger's file: its chain from the first line, each
// line a valid entry of its action, no half line at its end, and the
// head recorded outside it (head.go) reached. It gives the first problem
// as a *BrokenError, *MalformedError or *HeadError naming the line.
func (l *Ledger) Verify() (Head, error) {
	m, marked, err := l.mark()
	if err != nil {
		return Head{}, err
	}
	lines, tail, err := l.file.Read()
	if err != nil {
		return Head{}, fmt.Errorf("ledger: %w", err)
	}
	entries, broken, err := l.cache.of(lines, l.file.Path)
	switch {
	case broken != nil:
		return Head{}, broken
	case err != nil:
		return Head{}, err
	case tail != nil:
		return Head{}, &BrokenError{Path: l.file.Path, Line: len(lines) + 1,
			Why: fmt.Sprintf("%d bytes with no newline at the end of the file: a write cut short, or the file cut off in the middle of a line", len(tail))}
	}
	head := Head{Entries: len(entries), Hash: Genesis}
	if len(entries) > 0 {
		head.Hash = entries[len(entries)-1].Hash
	}
	if marked {
		head.Mark = &m
		if head.Ahead, err = m.reaches(l.file.Path, lines); err != nil {
			return Head{}, err
		}
	}
	return head, nil
}

// hasChainFields tells whether line carries a "prev" or a "hash" field,
// however placed: a line chained once. (Inside a JSON string a quote is
// escaped, so text cannot spell either.)
func hasChainFields(line []byte) bool {
	return bytes.Contains(line, []byte(`"hash":`)) || bytes.Contains(line, []byte(`"prev":`))
}

// Chain chains a ledger written before the chain, from its first line:
// each line kept byte for byte (its line end trimmed) and given its
// "prev" and "hash", in order; the file as it was is kept beside it
// (ledger.jsonl.unchained), its head recorded, and the count of lines
// chained returned. It is the one write that chains: it refuses a ledger
// with any line chained already, whole or in part, one whose head was
// ever recorded, a line that is not a valid entry and a half last line.
// A missing or empty ledger is left as it is (0).
func (l *Ledger) Chain() (int, error) {
	if lines, tail, err := l.file.Read(); err != nil || len(lines) == 0 && tail == nil {
		return 0, err
	}
	n := 0
	err := l.file.Rewrite(func(lines [][]byte) ([][]byte, error) {
		out, err := l.chainLines(lines)
		n = len(out)
		return out, err
	})
	if err != nil {
		return 0, fmt.Errorf("ledger: chaining: %w", err)
	}
	return n, nil
}

// chainLines chains the lines of a ledger from before the chain, having
// kept them beside it.
func (l *Ledger) chainLines(lines [][]byte) ([][]byte, error) {
	for i, line := range lines {
		if hasChainFields(line) {
			return nil, &BrokenError{Path: l.file.Path, Line: i + 1, Seq: lastSeq(line),
				Why: "it carries chain fields already: billsnap ledger chain chains only a ledger written before the chain, none of whose lines is chained"}
		}
	}
	if m, marked, err := l.mark(); err != nil || marked {
		if err == nil {
			err = &HeadError{Path: l.file.Path, Why: fmt.Sprintf("its head was recorded at %s (seq %d): it was chained, and a chained ledger is never chained again", m.At.Format(time.RFC3339), m.Seq)}
		}
		return nil, err
	}
	if _, err := parse(lines, l.file.Path, 0); err != nil {
		return nil, err
	}
	if err := keepUnchained(l.file.Path, lines); err != nil {
		return nil, err
	}
	out, prev := make([][]byte, len(lines)), Genesis
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) < 2 || line[len(line)-1] != '}' {
			return nil, &BrokenError{Path: l.file.Path, Line: i + 1, Why: "not a JSON object"}
		}
		body := append(append([]byte{}, line[:len(line)-1]...), `,"prev":"`+prev+`"}`...)
		out[i] = seal(body)
		prev = lastHash(out[i])
	}
	return out, nil
}

// keepUnchained writes the ledger as it was before its chain beside it,
// once.
func keepUnchained(path string, lines [][]byte) error {
	old := path + ".unchained"
	if _, err := os.Stat(old); err == nil {
		return nil
	}
	return os.WriteFile(old, append(bytes.Join(lines, []byte{'\n'}), '\n'), 0o644)
}

// lastHash is the hash a chained line carries ("" for one without).
func lastHash(line []byte) string {
	if m := hashTail.FindSubmatch(line); m != nil {
		return string(m[1])
	}
	return ""
}
