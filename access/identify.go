package access

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"strings"
)

// Control identifies requests as its Config says.
type Control struct {
	Config
	proxies []netip.Prefix
	users   []account // identity tokens
	secret  []byte    // keys the session cookies of identity tokens
}

// account is a user of identity tokens: the name and its token's hash.
type account struct {
	name string
	hash [sha256.Size]byte
}

// New makes the control of c, reading its tokens file; secret keys the
// session cookies (a new one at each start ends every session).
func New(c Config, secret []byte) (*Control, error) {
	ctl := &Control{Config: c, secret: secret}
	for _, p := range c.Proxies {
		pp, err := parseProxy(p)
		if err != nil {
			return nil, configErr("proxies", "%q is not an IP address or CIDR", p)
		}
		ctl.proxies = append(ctl.proxies, pp)
	}
	if c.Identity == Tokens {
		users, err := readTokens(c.TokensFile)
		if err != nil {
			return nil, configErr("tokens_file", "%v", err)
		}
		ctl.users = users
	}
	return ctl, nil
}

func configErr(key, format string, args ...any) error {
	return fmt.Errorf("config key workspace.%s: %s", key, fmt.Sprintf(format, args...))
}

// readTokens reads a tokens file: lines "name: hex SHA-256 of the
// token", blank lines and # comments skipped. A bad line names its file
// and line; a name given twice, or two names with one token, is refused.
func readTokens(path string) ([]account, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
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
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no user (lines \"name: sha256 of the token\")", path)
	}
	return out, sc.Err()
}

// ErrNoIdentity is a request that shows no identity the workspace takes.
var ErrNoIdentity = errors.New("no identity")

// UntrustedError is the identity header from an address that is not a
// configured proxy.
type UntrustedError struct{ From, Header string }

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("%s is honoured only from the proxies of workspace.proxies, and %s is not one", e.Header, e.From)
}

// Identify says who r comes from: for identity header, the header's
// user, when r comes from a configured proxy (else *UntrustedError, or
// ErrNoIdentity without the header); for identity tokens, the user whose
// token r shows as a bearer header or whose session cookie it carries
// (else ErrNoIdentity). Without identity it is the unattributed User{}.
func (c *Control) Identify(r *http.Request, cookie string) (User, error) {
	switch c.Identity {
	case Header:
		name := trimmed(r.Header.Get(c.Header))
		if !c.fromProxy(r.RemoteAddr) {
			if name == "" {
				return User{}, ErrNoIdentity
			}
			return User{}, &UntrustedError{From: r.RemoteAddr, Header: c.Header}
		}
		if name == "" {
			return User{}, ErrNoIdentity
		}
		return User{Name: name, Auth: Header}, nil
	case Tokens:
		if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			return c.Login(bearer)
		}
		return c.fromSession(cookie)
	}
	return User{}, nil
}

// fromProxy tells whether addr (host:port) is a configured proxy's.
func (c *Control) fromProxy(addr string) bool {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return false
	}
	for _, p := range c.proxies {
		if p.Contains(ap.Addr().Unmap()) {
			return true
		}
	}
	return false
}

// Users is how many users the tokens file names.
func (c *Control) Users() int { return len(c.users) }

// Login is the user of identity tokens whose token this is.
func (c *Control) Login(token string) (User, error) {
	h := sha256.Sum256([]byte(token))
	name := ""
	for _, a := range c.users {
		if subtle.ConstantTimeCompare(h[:], a.hash[:]) == 1 {
			name = a.name
		}
	}
	if name == "" {
		return User{}, ErrNoIdentity
	}
	return User{Name: name, Auth: Tokens}, nil
}

// Session is the session cookie's value for u, a user of identity
// tokens: the name and a MAC over it and the user's token hash, so that a
// new token ends the user's sessions.
func (c *Control) Session(u User) string {
	for _, a := range c.users {
		if a.name == u.Name {
			return hex.EncodeToString([]byte(a.name)) + "." + c.mac(a)
		}
	}
	return ""
}

func (c *Control) mac(a account) string {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte("billsnap session\x00" + a.name + "\x00"))
	m.Write(a.hash[:])
	return hex.EncodeToString(m.Sum(nil))
}

// fromSession is the user whose session cookie value v is.
func (c *Control) fromSession(v string) (User, error) {
	nameHex, sum, ok := strings.Cut(v, ".")
	name, err := hex.DecodeString(nameHex)
	if !ok || err != nil {
		return User{}, ErrNoIdentity
	}
	for _, a := range c.users {
		if a.name == string(name) && hmac.Equal([]byte(sum), []byte(c.mac(a))) {
			return User{Name: a.name, Auth: Tokens}, nil
		}
	}
	return User{}, ErrNoIdentity
}
