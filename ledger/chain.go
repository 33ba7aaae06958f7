package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
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
// its newest line (Genesis when it is empty).
type Head struct {
	Entries int
	Hash    string
}

// VerifyLines checks the chain of lines (path names them in errors): each
// line hashes to its "hash", names the line before in its "prev", and
// numbers itself one past it. It returns the first line that does not fit
// as a *BrokenError.
func VerifyLines(path string, lines [][]byte) (Head, error) {
	prev, seq, prevSeq := Genesis, 0, 0
	for i, line := range lines {
		broken := func(format string, args ...any) (Head, error) {
			return Head{}, &BrokenError{Path: path, Line: i + 1, Seq: seq, Why: fmt.Sprintf(format, args...)}
		}
		var l link
		if err := json.Unmarshal(line, &l); err != nil {
			seq = 0
			return broken("not a JSON entry: %v", err)
		}
		seq = l.Seq
		m := hashTail.FindSubmatch(line)
		switch {
		case l.Hash == "" && l.Prev == "":
			return broken("it carries no chain hash (a ledger from before the chain: billsnap serve as it starts, or billsnap ledger chain, chains it)")
		case m == nil || string(m[1]) != l.Hash:
			return broken(`its "hash" is not the line's last field`)
		case sealedHash(line, len(m[0])) != l.Hash:
			return broken("its bytes do not hash to its \"hash\" %s: the line was changed after it was written", short(l.Hash))
		case l.Prev != prev:
			return broken("its \"prev\" %s is not the hash of the line before it, %s: a line was removed, inserted or rewritten", short(l.Prev), short(prev))
		case i > 0 && l.Seq != prevSeq+1:
			return broken("its seq follows %d", prevSeq)
		}
		prev, prevSeq = l.Hash, l.Seq
	}
	return Head{Entries: len(lines), Hash: prev}, nil
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

// Verify checks the chain of the ledger's file, from its first line.
func (l *Ledger) Verify() (Head, error) {
	lines, err := l.file.Lines()
	if err != nil {
		return Head{}, fmt.Errorf("ledger: %w", err)
	}
	return VerifyLines(l.file.Path, lines)
}

// chained tells whether every line carries its chain fields (an empty
// ledger is chained).
func chained(lines [][]byte) bool {
	for _, line := range lines {
		if !hashTail.Match(line) {
			return false
		}
	}
	return true
}

// Chain chains a ledger written before the chain, from its first line:
// each line is kept byte for byte and given its "prev" and "hash", in
// order; the file as it was is kept beside it (ledger.jsonl.unchained) and
// the count of lines chained is returned. A ledger already chained (or
// missing) is left as it is (0). A ledger whose lines are partly chained is refused: that
// is not an upgrade but a ledger changed by hand.
func (l *Ledger) Chain() (int, error) {
	if lines, err := l.file.Lines(); err != nil || chained(lines) {
		return 0, err // a missing ledger has no line, and is left missing
	}
	n := 0
	err := l.file.Rewrite(func(lines [][]byte) ([][]byte, error) {
		if chained(lines) {
			return lines, nil
		}
		for i, line := range lines {
			if hashTail.Match(line) {
				return nil, &BrokenError{Path: l.file.Path, Line: i + 1, Seq: lastSeq(line), Why: "a chained line among unchained ones: the ledger was changed by hand"}
			}
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
		n = len(lines)
		return out, nil
	})
	if err != nil {
		return 0, fmt.Errorf("ledger: chaining: %w", err)
	}
	return n, nil
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
