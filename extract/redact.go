package extract

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"strings"
)

// Secret is the API key with what it takes to keep it out of output.
type Secret struct {
	key   string
	forms []string // the key and its encodings, longest first
}

// NewSecret wraps key.
func NewSecret(key string) *Secret {
	s := &Secret{key: key}
	if key != "" {
		b64 := base64.StdEncoding.EncodeToString([]byte(key))
		s.forms = []string{"Bearer " + b64, b64, base64.RawStdEncoding.EncodeToString([]byte(key)),
			base64.URLEncoding.EncodeToString([]byte(key)), url.QueryEscape(key), url.PathEscape(key), key}
	}
	return s
}

// Authorization is the header value spec §5 asks for.
func (s *Secret) Authorization() string {
	return "Bearer " + base64.StdEncoding.EncodeToString([]byte(s.key))
}

// Redact replaces every form of the key in text with [REDACTED].
func (s *Secret) Redact(text string) string {
	if s == nil {
		return text
	}
	for _, f := range s.forms {
		if len(f) >= 4 {
			text = strings.ReplaceAll(text, f, "[REDACTED]")
		}
	}
	return text
}

var secretParam = regexp.MustCompile(`(?i)(key|token|secret|passw|signature|^sig$|auth|credential|^code$)`)

// RedactURL removes credentials from a URL for a message: the userinfo, and
// the values of query parameters whose names suggest a secret.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[unparsable URL]"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	q := u.Query()
	changed := false
	for k := range q {
		if secretParam.MatchString(k) {
			q[k], changed = []string{"REDACTED"}, true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}
