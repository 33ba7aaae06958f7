package access

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Each mode needs its keys, and the keys of the other mode are refused,
// each error naming its key.
func TestTheModesAreOneOrTheOther(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string // a key named, "" for none
	}{
		{Config{}, ""},
		{Config{Identity: Header, Header: "X-Forwarded-Email", Proxies: []string{"10.0.0.0/8", "127.0.0.1"}}, ""},
		{Config{Identity: Tokens, TokensFile: "users"}, ""},
		{Config{Roles: Roles{Close: []string{"x"}}}, "identity"},
		{Config{Identity: Header, Proxies: []string{"127.0.0.1"}}, "header"},
		{Config{Identity: Header, Header: "X-Forwarded-Email"}, "proxies"},
		{Config{Identity: Header, Header: "X", Proxies: []string{"proxy.example"}}, "proxies"},
		{Config{Identity: Tokens, TokensFile: "users", Header: "X"}, "header"},
		{Config{Identity: "oidc"}, "identity"},
		{Config{Identity: Tokens, TokensFile: "users", Proxies: []string{"10.0.0.1"}}, ""},
		{Config{Proxies: []string{"10.0.0.1"}}, ""},
		{Config{SessionTTL: time.Second}, "session_ttl"},
	} {
		if c.cfg.SessionTTL == 0 {
			c.cfg.SessionTTL = 12 * time.Hour
		}
		err := c.cfg.Validate()
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), "key "+c.want+":")) {
			t.Errorf("%+v: %v; want key %q", c.cfg, err, c.want)
		}
	}
}

// A tokens file's bad line is named by file and line.
func TestATokensFileIsReadStrictly(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{"dana: 3f\n", "line 1"},
		{"# users\n\nann: " + strings.Repeat("ab", 32) + "\nbob " + strings.Repeat("cd", 32) + "\n", "line 4"},
		{"ann: " + strings.Repeat("ab", 32) + "\nann: " + strings.Repeat("cd", 32) + "\n", "line 2"},
		{"# nobody\n", "no user"},
	} {
		path := filepath.Join(dir, "users")
		os.WriteFile(path, []byte(c.body), 0o600)
		if _, err := New(Config{Identity: Tokens, TokensFile: path}, time.Now, quiet); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.body, err, c.want)
		}
	}
}

// Roles: a named user or "*"; no one else; always, without identity.
func TestRoles(t *testing.T) {
	c := Config{Identity: Tokens, Roles: Roles{Waive: []string{"*"}, SignOff: []string{"dana"}}}
	for _, x := range []struct {
		u    User
		role string
		ok   bool
	}{
		{User{"erin", Tokens}, RoleWaive, true}, {User{"erin", Tokens}, RoleSignOff, false}, {User{"dana", Tokens}, RoleSignOff, true},
		{User{"dana", Tokens}, RoleClose, false}, {User{}, RoleClose, true},
	} {
		if err := c.May(x.u, x.role); (err == nil) != x.ok {
			t.Errorf("%+v %s: %v", x.u, x.role, err)
		}
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
