// Package access says who a workspace request comes from and what they
// may do: identity from where an organisation keeps it, and roles from the
// configuration. Two identities are offered, one at a time:
//
//   - "header": a trusted proxy (oauth2-proxy, a load balancer's
//     authentication) names the user in a header, such as
//     X-Forwarded-Email. The header is honoured only from the configured
//     proxy addresses; from anywhere else the request is refused, so a
//     client that reaches the workspace round the proxy cannot name itself.
//   - "tokens": each person has a token of their own; a file of lines
//     "name: sha256(token)" says whose is whose, so the file holds no token.
//     The file is looked at again as it is used (at most every Recheck),
//     so a token removed or rotated stops within seconds, with its
//     sessions.
//
// With either, what is recorded as who did it is the identity, never a
// name typed in a form, and each write needs its role: waive (waive and
// lift), signoff, close (close and reopen), assign (unset: those who may
// waive). With neither, the workspace is as before: unattributed, the name
// as typed. [Control.Names] says who the workspace's users are, the ones
// work may be assigned to.
package access

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/billsnap/billsnap/configkey"
)

// Identity modes.
const (
	None   = ""
	Header = "header"
	Tokens = "tokens"
)

// Roles a write needs.
const (
	RoleWaive   = "waive"
	RoleSignOff = "signoff"
	RoleClose   = "close"
	RoleAssign  = "assign"
)

// Config is the workspace's access, the config key workspace.
type Config struct {
	Identity   string   `yaml:"identity"`    // "", header or tokens
	Header     string   `yaml:"header"`      // identity header: the header that names the user
	Proxies    []string `yaml:"proxies"`     // the trusted proxies' addresses (IPs or CIDRs): the identity header, X-Forwarded-Proto and -For are honoured from them
	TokensFile string   `yaml:"tokens_file"` // identity tokens: lines "name: sha256 of the token, hex"
	Roles      Roles    `yaml:"roles"`
	// SessionTTL is how long a login's session lasts (the shared token's
	// or a token of one's own); at least a minute.
	SessionTTL time.Duration `yaml:"session_ttl"`
	// AllowUnattributed lets the workspace take an unattributed write
	// (no identity: the name as typed) once the store's ledger holds
	// attributed entries; each such entry records that it was allowed.
	// Without it such a write is refused, so that restarting the
	// workspace without its identity cannot drop who signs off and closes.
	AllowUnattributed bool `yaml:"allow_unattributed"`
}

// Roles name who may do what: user names, or "*" for every identified
// user. A role no one is given is no one's.
type Roles struct {
	Waive   []string `yaml:"waive"`   // waive and lift
	SignOff []string `yaml:"signoff"` // sign off a period
	Close   []string `yaml:"close"`   // close and reopen a period
	// Assign names who may assign findings; unset (null), those who may
	// waive may.
	Assign []string `yaml:"assign"`
}

// Validate checks the keys (relative to workspace), every problem an
// error naming its key.
func (c Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, configkey.Errorf(key, format, args...))
	}
	switch c.Identity {
	case None:
		if c.Header != "" || c.TokensFile != "" || c.Roles.any() {
			bad("identity", "is not set, but header, tokens_file or roles are: set identity to header or tokens")
		}
	case Header:
		if c.Header == "" {
			bad("header", "is required with identity header (such as X-Forwarded-Email)")
		}
		if len(c.Proxies) == 0 {
			bad("proxies", "is required with identity header: the addresses of the proxies that set the header")
		}
		if c.TokensFile != "" {
			bad("tokens_file", "is for identity tokens, not header: the identities are one or the other")
		}
	case Tokens:
		if c.TokensFile == "" {
			bad("tokens_file", "is required with identity tokens")
		}
		if c.Header != "" {
			bad("header", "is for identity header, not tokens: the identities are one or the other")
		}
	default:
		bad("identity", "must be header or tokens (or unset), not %q", c.Identity)
	}
	for _, p := range c.Proxies {
		if _, err := parseProxy(p); err != nil {
			bad("proxies", "%q is not an IP address or CIDR", p)
		}
	}
	if c.SessionTTL < time.Minute {
		bad("session_ttl", "must be at least 1m (such as 12h), not %s", c.SessionTTL)
	}
	return errors.Join(errs...)
}

func (r Roles) any() bool { return len(r.Waive)+len(r.SignOff)+len(r.Close)+len(r.Assign) > 0 }

// users are the names a role gives, and its key for messages.
func (r Roles) users(role string) ([]string, string) {
	switch role {
	case RoleWaive:
		return r.Waive, "workspace.roles.waive"
	case RoleSignOff:
		return r.SignOff, "workspace.roles.signoff"
	case RoleAssign:
		if r.Assign == nil {
			return r.Waive, "workspace.roles.waive (roles.assign unset)"
		}
		return r.Assign, "workspace.roles.assign"
	}
	return r.Close, "workspace.roles.close"
}

func parseProxy(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

// User is who a request comes from, and how that was established (Header
// or Tokens); Auth None is an unattributed request.
type User struct{ Name, Auth string }

// DeniedError is a write outside its user's roles.
type DeniedError struct {
	User, Role, Key string
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("%s may not %s: %s does not name them", e.User, roleVerb(e.Role), e.Key)
}

func roleVerb(role string) string {
	switch role {
	case RoleWaive:
		return "waive or lift a waiver"
	case RoleSignOff:
		return "sign off"
	case RoleAssign:
		return "assign a finding"
	}
	return "close or reopen a period"
}

// May checks that u may act in role: always, for an unattributed user
// (there are no roles without identity); else when the role's users name
// u or "*".
func (c Config) May(u User, role string) error {
	if u.Auth == None {
		return nil
	}
	names, key := c.Roles.users(role)
	if slices.Contains(names, u.Name) || slices.Contains(names, "*") {
		return nil
	}
	return &DeniedError{User: u.Name, Role: role, Key: key}
}

// trimmed is s without surrounding space.
func trimmed(s string) string { return strings.TrimSpace(s) }
