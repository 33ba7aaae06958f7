package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/reconcile"
)

// Exit codes, chosen here and nowhere else (README.md, "Exit codes").
const (
	exitOK          = 0   // the job ran; nothing material found
	exitFailure     = 1   // the job failed: the service, the network, the disk, bad input
	exitUsage       = 2   // bad flags, arguments or configuration
	exitMaterial    = 3   // the job ran and found material discrepancies, or a snapshot is incomplete
	exitInterrupted = 130 // stopped by SIGINT or SIGTERM before it finished
)

const exitCodesHelp = `Exit codes:
  0    ok: the job ran and found nothing material
  1    failure: the service, the network, the disk, or bad input from the service
  2    usage: bad flags, arguments or configuration, an unknown --snapshot,
       or no store where a command that only reads one (status, reconcile,
       report) looks
  3    material: discrepancies at or above materiality, or an incomplete snapshot
  130  interrupted by SIGINT or SIGTERM`

// usageError marks an error as the caller's: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode maps an error returned by a subcommand to the process exit code.
func exitCode(ctx context.Context, err error) int {
	var u usageError
	var m materialError
	var unknown *reconcile.UnknownSnapshotError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u), errors.As(err, &unknown):
		return exitUsage
	case errors.As(err, &m):
		return exitMaterial
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitFailure
}

// materialError is a job that ran and found something material: exit 3.
type materialError struct{ msg string }

func (e materialError) Error() string { return e.msg }

// hint adds what to do about errors a user can fix.
func hint(err error) string {
	var api *extract.APIError
	if errors.As(err, &api) && api.IsAuth() {
		return "\n  the service refused the API key: check " + config.EnvAPIKey + " or --api-key-file"
	}
	return ""
}
