package cli

import (
	"io"
	"slices"
	"sync"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
)

// redactingWriter writes through w with the API key taken out of every
// write. Every output of the program goes through one.
type redactingWriter struct {
	mu  sync.Mutex
	w   io.Writer
	env *cliEnv
}

func (r *redactingWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.env.redact(string(p))
	if _, err := io.WriteString(r.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// redact takes the API keys, once known, out of text: the one in use and
// any read before it (a key rotated away is still a secret).
func (e *cliEnv) redact(text string) string {
	if keys := e.secrets.Load(); keys != nil {
		for _, s := range *keys {
			text = s.Redact(text)
		}
	}
	return text
}

// setSecret makes every later output redact s, as well as the keys set
// before it.
func (e *cliEnv) setSecret(s *extract.Secret) {
	for {
		old := e.secrets.Load()
		var keys []*extract.Secret
		if old != nil {
			if slices.ContainsFunc(*old, func(k *extract.Secret) bool { return k.Authorization() == s.Authorization() }) {
				return
			}
			keys = slices.Clone(*old)
		}
		keys = append(keys, s)
		if e.secrets.CompareAndSwap(old, &keys) {
			return
		}
	}
}

// learnSecret reads the API key, when it can be read, before the
// configuration is, so that a key pasted into it (a URL, a collection's
// path, any value) is redacted from what is printed about it, errors
// included. Whether the key is missing or unreadable is for the command
// that needs it to say.
func (e *cliEnv) learnSecret(keyFile string) {
	if key, err := config.APIKey(e.getenv, keyFile, func(string) {}); err == nil {
		e.setSecret(extract.NewSecret(key))
	}
}
