package main

import (
	"errors"

	"github.com/billsnap/billsnap/extract"
)

// exitCodesHelp says what the exit codes (job.Exit*) mean in general, for
// the top-level --help; each command's --help lists the codes it can
// return, with their meaning for it (pages).
const exitCodesHelp = `Exit codes (each command's --help lists those it can return, and what they mean for it):
  0    ok: the command did what it was asked, and found nothing material
  1    failure: the service, the network, the disk, or what does not verify
  2    usage: bad flags, arguments or configuration, named in one line
  3    material: discrepancies at or above materiality, or an incomplete snapshot
  130  interrupted by SIGINT or SIGTERM before it finished`

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
