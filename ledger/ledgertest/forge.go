// Package ledgertest forges ledger lines, for the tests of what billsnap
// does with a ledger that lies: a line chained as billsnap chains it
// (package ledger's chain.go), written by someone who knows how.
package ledgertest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Genesis is the "prev" of a ledger's first line.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

var hashTail = regexp.MustCompile(`,"hash":"([0-9a-f]{64})"}$`)

// Sealed is body, the JSON object of an entry without chain fields,
// chained after a line whose hash is prev.
func Sealed(prev, body string) []byte {
	sealed := strings.TrimSuffix(body, "}") + `,"prev":"` + prev + `"}`
	sum := sha256.Sum256([]byte(sealed))
	return []byte(strings.TrimSuffix(sealed, "}") + `,"hash":"` + hex.EncodeToString(sum[:]) + `"}`)
}

// Hash is the hash a chained line carries ("" for a line without).
func Hash(line []byte) string {
	if m := hashTail.FindSubmatch(line); m != nil {
		return string(m[1])
	}
	return ""
}

// Append adds to the ledger at path a line of body chained after its
// last line (Genesis when it has none), with its newline.
func Append(t testing.TB, path, body string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	prev := Genesis
	if lines := bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'}); len(b) > 0 {
		prev = Hash(lines[len(lines)-1])
	}
	if err := os.WriteFile(path, append(append(b, Sealed(prev, body)...), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
