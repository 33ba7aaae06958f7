package main

import (
	"errors"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
)

// exitCodesHelp says what the exit codes (job.Exit*) mean, for --help.
const exitCodesHelp = `Exit codes:
  0    ok: the job ran and found nothing material
  1    failure: the service, the network, the disk, or bad input from the service;
       for ledger verify, evidence verify and status --verify, what does not verify;
       evidence, and reconcile --period of a closed period, refuse a snapshot whose
       Parquet files do not hash to its manifest
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

// hint adds what to do about errors a user can fix.
func hint(err error) string {
	var api *extract.APIError
	if errors.As(err, &api) && api.IsAuth() {
		return "\n  the service refused the API key: check " + config.EnvAPIKey + " or --api-key-file"
	}
	return ""
}
