package cli

import (
	"github.com/billsnap/billsnap/config"
)

// hinted is an error with what to do about it (cliEnv.hint) as part of its
// text, so that the journal, the notifications, status and the log keep
// the hint with the error.
type hinted struct {
	err  error
	hint string // begins with a line break and two spaces
}

func (h *hinted) Error() string { return h.err.Error() + h.hint }
func (h *hinted) Unwrap() error { return h.err }

// withHint is err with its hint as part of its text; err when it has none.
func (env *cliEnv) withHint(err error) error {
	if err == nil {
		return nil
	}
	h := env.hint(err)
	if h == "" {
		return err
	}
	return &hinted{err, h}
}

// keyFrom says where the API key in use came from (describeKey), never
// what it is; the environment variable when no key was read yet.
func (env *cliEnv) keyFrom() string {
	if s := env.keySource.Load(); s != nil {
		return *s
	}
	return "from " + config.EnvAPIKey
}
