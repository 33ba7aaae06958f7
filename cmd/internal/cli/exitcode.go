package cli

import (
	"errors"

	"github.com/billsnap/billsnap/extract"
)

// hint adds what to do about errors a user can fix, naming what the
// user set (the key's source actually used); "" for an error that
// carries its hint already (withHint).
func (env *cliEnv) hint(err error) string {
	var (
		api *extract.APIError
		h   *hinted
	)
	switch {
	case errors.As(err, &h):
		return ""
	case errors.As(err, &api) && api.IsAuth():
		return "\n  the service refused the API key " + env.keyFrom() + ": check the key there"
	}
	return ""
}
