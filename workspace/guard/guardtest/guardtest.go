// Package guardtest is what the tests of the workspace and of its guard
// share: a tokens file of users, and a request answered without
// following its redirects.
package guardtest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TokensFile writes a tokens file of users (name → token) in a folder of
// t's and gives its path.
func TokensFile(t testing.TB, users map[string]string) string {
	t.Helper()
	var b strings.Builder
	for name, tok := range users {
		sum := sha256.Sum256([]byte(tok))
		b.WriteString(name + ": " + hex.EncodeToString(sum[:]) + "\n")
	}
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Call is one request: GET when Method is "".
type Call struct {
	Method, Path, Body, ContentType string
	Header                          map[string]string
}

// Answer is what a Call was answered.
type Answer struct {
	Status int
	Header http.Header
	Body   string
}

// Do sends c to the server at base (its URL), redirects not followed; an
// error sending it fails t.
func Do(t testing.TB, base string, c Call) Answer {
	t.Helper()
	method := c.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, base+c.Path, strings.NewReader(c.Body))
	if err != nil {
		t.Fatal(err)
	}
	if c.ContentType != "" {
		req.Header.Set("Content-Type", c.ContentType)
	}
	for k, v := range c.Header {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}
