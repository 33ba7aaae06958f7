// Package ledgertest forges ledger lines, for the tests of what billsnap
// does with a ledger that lies: a line chained as billsnap chains it
// (package ledger's chain.go), written by someone who knows how.
package ledgertest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// genesis is the "prev" of a ledger's first line: 64 zeros.
var genesis = strings.Repeat("0", sha256.Size*2)

// Sealed is body, the JSON object of an entry without chain fields,
// chained after a line whose hash is prev.
func Sealed(prev, body string) []byte {
	sealed := strings.TrimSuffix(body, "}") + `,"prev":"` + prev + `"}`
	sum := sha256.Sum256([]byte(sealed))
	return []byte(strings.TrimSuffix(sealed, "}") + `,"hash":"` + hex.EncodeToString(sum[:]) + `"}`)
}

// Hash is the hash a chained line carries, its last field ("" for a
// line without).
func Hash(line []byte) string {
	const field = `,"hash":"`
	i := bytes.LastIndex(line, []byte(field))
	if i < 0 || len(line) < i+len(field)+sha256.Size*2 {
		return ""
	}
	return string(line[i+len(field) : i+len(field)+sha256.Size*2])
}

// Append adds to the ledger at path a line of body chained after its
// last line (after 64 zeros when it has none), with its newline.
func Append(t testing.TB, path, body string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	prev := genesis
	if lines := bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'}); len(b) > 0 {
		prev = Hash(lines[len(lines)-1])
	}
	if err := os.WriteFile(path, append(append(b, Sealed(prev, body)...), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
