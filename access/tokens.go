package access

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxTokensFile is the most a tokens file may hold.
const maxTokensFile = 1 << 20

// loadTokens reads a tokens file and the hash of its bytes.
func loadTokens(path string) ([]account, [sha256.Size]byte, error) {
	b, err := readTokensFile(path)
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	users, err := parseTokens(path, b)
	return users, sha256.Sum256(b), err
}

// readTokensFile reads the tokens file at path, as sshd reads a key: a
// file that is not regular, that group or others may write, or that holds
// more than 1 MiB is refused, naming the file (and its mode).
func readTokensFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return nil, fmt.Errorf("%s may be written by group or others (mode %04o): chmod go-w %s", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokensFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxTokensFile {
		return nil, fmt.Errorf("%s holds more than %d bytes", path, maxTokensFile)
	}
	return b, nil
}

// parseTokens reads the lines of a tokens file: "name: hex SHA-256 of
// the token", blank lines and # comments skipped. A bad line names its
// file and line; a name given twice, or two names with one token, is
// refused.
func parseTokens(path string, b []byte) ([]account, error) {
	var out []account
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := trimmed(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndex(line, ":")
		name, hexHash := trimmed(line[:max(i, 0)]), trimmed(line[i+1:])
		h, err := hex.DecodeString(hexHash)
		if i < 0 || name == "" || err != nil || len(h) != sha256.Size {
			return nil, fmt.Errorf("%s line %d: want \"name: the token's SHA-256 in hex\" (printf %%s TOKEN | sha256sum)", path, n)
		}
		a := account{name: name, hash: [sha256.Size]byte(h)}
		for _, o := range out {
			if o.name == name || o.hash == a.hash {
				return nil, fmt.Errorf("%s line %d: %s has a name or a token given before", path, n, name)
			}
		}
		out = append(out, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no user (lines \"name: sha256 of the token\")", path)
	}
	return out, nil
}
