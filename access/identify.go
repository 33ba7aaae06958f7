package access

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Recheck is how often, at most, a workspace of identity tokens looks at
// its tokens file again: a removed or rotated token stops within it.
const Recheck = time.Second

// Control identifies requests as its Config says. It is safe for
// concurrent use.
type Control struct {
	Config
	proxies []netip.Prefix
	now     func() time.Time
	log     *slog.Logger

	mu      sync.Mutex
	users   []account // identity tokens, as last read
	sum     [sha256.Size]byte
	checked time.Time
	broken  error // the tokens file is unreadable or invalid: no one gets in
}

// account is a user of identity tokens: the name and its token's hash.
type account struct {
	name string
	hash [sha256.Size]byte
}

// New makes the control of c, reading its tokens file (an unreadable or
// invalid one, or one that group or others may write, is an error naming
// the file). now is the clock the file is looked at again by, at most
// every Recheck; log says when it is read again or turns bad.
func New(c Config, now func() time.Time, log *slog.Logger) (*Control, error) {
	ctl := &Control{Config: c, now: now, log: log}
	for _, p := range c.Proxies {
		pp, err := parseProxy(p)
		if err != nil {
			return nil, configErr("proxies", "%q is not an IP address or CIDR", p)
		}
		ctl.proxies = append(ctl.proxies, pp)
	}
	if c.Identity == Tokens {
		ctl.checked = now()
		users, sum, err := loadTokens(c.TokensFile)
		if err != nil {
			return nil, configErr("tokens_file", "%v", err)
		}
		ctl.users, ctl.sum = users, sum
	}
	return ctl, nil
}

func configErr(key, format string, args ...any) error {
	return fmt.Errorf("config key workspace.%s: %s", key, fmt.Sprintf(format, args...))
}

// accounts are the users of the tokens file as it is now: read again when
// Recheck has passed since it was last looked at and it changed. A file
// that turned unreadable or invalid gives none, and its error, until it
// is valid again.
func (c *Control) accounts() ([]account, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := c.now(); now.Sub(c.checked) >= Recheck || now.Before(c.checked) {
		c.checked = now
		c.reload()
	}
	return c.users, c.broken
}

// reload reads the tokens file again, logging a change.
func (c *Control) reload() {
	users, sum, err := loadTokens(c.TokensFile)
	switch {
	case err != nil:
		if c.broken == nil || c.broken.Error() != err.Error() {
			c.log.Error("workspace: the tokens file is unreadable or invalid: every token and session is refused until it is valid", "error", err)
		}
		c.users, c.broken = nil, err
	case c.broken != nil || sum != c.sum:
		c.log.Info("workspace: the tokens file changed and is read again", "file", c.TokensFile, "users", len(users))
		c.users, c.sum, c.broken = users, sum, nil
	}
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
// token r shows as a bearer header (else ErrNoIdentity: a session is the
// workspace's to resume, with Resume). Without identity it is the
// unattributed User{}.
func (c *Control) Identify(r *http.Request) (User, error) {
	switch c.Identity {
	case Header:
		name := trimmed(r.Header.Get(c.Header))
		if !c.FromProxy(r) {
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
		if bearer, ok := Bearer(r); ok {
			return c.Login(bearer)
		}
		return User{}, ErrNoIdentity
	}
	return User{}, nil
}

// Bearer is the token of r's Authorization: Bearer header, if it has one.
func Bearer(r *http.Request) (string, bool) {
	return strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// FromProxy tells whether r comes from a configured proxy's address.
func (c *Control) FromProxy(r *http.Request) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && c.isProxy(ap.Addr())
}

func (c *Control) isProxy(a netip.Addr) bool {
	for _, p := range c.proxies {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// HTTPS tells whether r reached the workspace over TLS: its own, or a
// configured proxy's that says so (X-Forwarded-Proto: https). The header
// from anywhere else is ignored.
func (c *Control) HTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	proto := r.Header.Values("X-Forwarded-Proto")
	return c.FromProxy(r) && len(proto) > 0 && strings.EqualFold(trimmed(proto[len(proto)-1]), "https")
}

// Client is the address r comes from: r's peer, or when that is a
// configured proxy, the nearest address of X-Forwarded-For that is not a
// proxy (the proxy's own when the header names none or is malformed).
func (c *Control) Client(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	client := ap.Addr().Unmap()
	if !c.isProxy(client) {
		return client.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(trimmed(hops[i]))
		if err != nil {
			break
		}
		if client = a.Unmap(); !c.isProxy(client) {
			break
		}
	}
	return client.String()
}

// Users is how many users the tokens file names.
func (c *Control) Users() int {
	users, _ := c.accounts()
	return len(users)
}

// Known tells whether the tokens file names a user called name.
func (c *Control) Known(name string) bool {
	users, _ := c.accounts()
	for _, a := range users {
		if a.name == name {
			return true
		}
	}
	return false
}

// Login is the user of identity tokens whose token this is, in the
// tokens file as it is now.
func (c *Control) Login(token string) (User, error) {
	return c.Resume(sha256.Sum256([]byte(token)))
}

// Resume is the user whose token hashes to sum, in the tokens file as it
// is now: a session remembers the hash of the token it was opened with,
// so that a token removed or rotated ends its sessions too. A tokens file
// that is unreadable or invalid lets no one in.
func (c *Control) Resume(sum [sha256.Size]byte) (User, error) {
	users, _ := c.accounts()
	name := ""
	for _, a := range users {
		if subtle.ConstantTimeCompare(sum[:], a.hash[:]) == 1 {
			name = a.name
		}
	}
	if name == "" {
		return User{}, ErrNoIdentity
	}
	return User{Name: name, Auth: Tokens}, nil
}
