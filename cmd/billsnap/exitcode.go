package main

import (
	"errors"

	"github.com/billsnap/billsnap/extract"
)

// exitCodesHelp says what the exit codes (job.Exit*) mean, for --help.
const exitCodesHelp = `Exit codes:
  0    ok: the job ran and found nothing material
  1    failure: the service, the network, the disk, or bad input from the service;
       for ledger verify and evidence verify, what does not verify
  2    usage: bad flags, arguments or configuration, an unknown --snapshot
       (or, for recheck, one not reconciled), a --since, --until or --as-of
       before the store's history or naming no snapshot of it,
       a statement query cannot prepare, no store where a command that
       only reads one (status, reconcile, report, query, changes, serve,
       ledger, evidence) looks, an unusable --out (a file, a missing parent,
       no permission), serve on an address that is not loopback without
       --token-file or workspace.identity, or evidence of a period not closed
  3    material: discrepancies at or above materiality, or an incomplete snapshot
  130  interrupted by SIGINT or SIGTERM`

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
