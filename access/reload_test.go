package access

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/internal/syncbuf"
)

// line is a tokens file's line for name and token.
func line(name, token string) string {
	sum := sha256.Sum256([]byte(token))
	return name + ": " + hex.EncodeToString(sum[:]) + "\n"
}

// writeTokens writes a tokens file, mode 0600.
func writeTokens(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The tokens file is looked at again after Recheck: a removed token and a
// rotated one stop, the new one works; a file turned invalid lets no one
// in and is logged with its line, until it is valid again.
func TestTheTokensFileIsReadAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users")
	writeTokens(t, path, line("ann", "ann-token-000000")+line("bob", "bob-token-000000"))
	clock := fakeclock.New(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	var logs syncbuf.Buffer
	c, err := New(Config{Identity: Tokens, TokensFile: path}, clock.Now, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	login := func(token string) string {
		u, err := c.Login(token)
		if err != nil {
			return ""
		}
		return u.Name
	}
	if login("ann-token-000000") != "ann" || login("bob-token-000000") != "bob" {
		t.Fatal("the first file's users do not log in")
	}
	writeTokens(t, path, line("bob", "bob-token-111111"))
	clock.Sleep(context.Background(), Recheck)
	if got := login("ann-token-000000") + login("bob-token-000000"); got != "" {
		t.Errorf("a removed and a rotated token, %s later: still %q", Recheck, got)
	}
	if login("bob-token-111111") != "bob" || c.Users() != 1 {
		t.Errorf("the rotated token does not log in (%d users)", c.Users())
	}
	writeTokens(t, path, line("bob", "bob-token-111111")+"carol 12\n")
	clock.Sleep(context.Background(), Recheck)
	if login("bob-token-111111") != "" || !strings.Contains(logs.String(), path+" line 2") {
		t.Errorf("an invalid file: bob still in, or the log does not name the line: %s", logs.String())
	}
	writeTokens(t, path, line("bob", "bob-token-111111"))
	clock.Sleep(context.Background(), Recheck)
	if login("bob-token-111111") != "bob" {
		t.Error("the file valid again: bob is not let in")
	}
	os.Chmod(path, 0o620)
	clock.Sleep(context.Background(), Recheck)
	if login("bob-token-111111") != "" {
		t.Error("the file made group-writable: bob is still let in")
	}
}

// A tokens file that group or others may write is refused, naming the
// file and its mode, as sshd refuses such a key.
func TestAWritableTokensFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users")
	writeTokens(t, path, line("ann", "ann-token-000000"))
	for _, mode := range []os.FileMode{0o620, 0o602, 0o666} {
		os.Chmod(path, mode)
		_, err := New(Config{Identity: Tokens, TokensFile: path}, time.Now, quiet)
		if err == nil || !strings.Contains(err.Error(), "tokens_file: "+path) || !strings.Contains(err.Error(), fmt.Sprintf("(mode %04o)", mode)) {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
	os.Chmod(path, 0o640)
	if _, err := New(Config{Identity: Tokens, TokensFile: path}, time.Now, quiet); err != nil {
		t.Errorf("mode 0640: %v", err)
	}
}

// HTTPS and the client's address are taken from X-Forwarded-Proto and
// X-Forwarded-For only when a trusted proxy sends them.
func TestTheProxysForwardedHeaders(t *testing.T) {
	c, err := New(Config{Proxies: []string{"10.0.0.1", "10.1.0.0/16"}}, time.Now, quiet)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		from, proto, forwarded string
		tls                    bool
		https                  bool
		client                 string
	}{
		{"10.0.0.1:4000", "https", "203.0.113.9", false, true, "203.0.113.9"},
		{"10.0.0.1:4000", "http", "203.0.113.9, 10.1.2.3", false, false, "203.0.113.9"},
		{"10.0.0.1:4000", "", "", false, false, "10.0.0.1"},
		{"10.0.0.1:4000", "https", "not-an-address", false, true, "10.0.0.1"},
		{"192.0.2.7:4000", "https", "203.0.113.9", false, false, "192.0.2.7"},
		{"192.0.2.7:4000", "", "", true, true, "192.0.2.7"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = x.from
		if x.proto != "" {
			r.Header.Set("X-Forwarded-Proto", x.proto)
		}
		if x.forwarded != "" {
			r.Header.Set("X-Forwarded-For", x.forwarded)
		}
		if !x.tls {
			r.TLS = nil
		} else {
			r.TLS = &tls.ConnectionState{}
		}
		if c.HTTPS(r) != x.https || c.Client(r) != x.client {
			t.Errorf("%+v: https %v, client %s", x, c.HTTPS(r), c.Client(r))
		}
	}
}
