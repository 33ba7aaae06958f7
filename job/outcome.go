package job

import (
	"context"
	"errors"

	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/journal"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// Exit codes of billsnap, chosen here and nowhere else (README.md, "Exit
// codes"): the command line exits with them and the journal records them.
const (
	ExitOK          = 0   // the job ran; nothing material found
	ExitFailure     = 1   // the job failed: the service, the network, the disk, bad input
	ExitUsage       = 2   // bad flags, arguments or configuration
	ExitMaterial    = 3   // the job ran and found material discrepancies, or a snapshot is incomplete
	ExitInterrupted = 130 // stopped by SIGINT or SIGTERM before it finished
)

// Outcome is what a job reports besides its error.
type Outcome struct {
	Snapshot         string // the snapshot it took or reconciled
	Material         bool   // it found something material (exit 3)
	Note             string // why it is material, for people
	journal.Requests        // what its requests to the service met
	// Report is the reconciliation the job made or wrote reports of; nil
	// for the others (for the notifications).
	Report *findings.Report
	// Demo is the demo's: material findings are on record as such, and the
	// demo exits 0 whatever it finds.
	Demo bool
}

// MaterialError is a job that ran and found something material (exit 3).
type MaterialError struct{ Note string }

func (e MaterialError) Error() string { return e.Note }

// Material is err, or a MaterialError when the job ran and out is material.
func Material(out Outcome, err error) error {
	if err == nil && out.Material {
		return MaterialError{out.Note}
	}
	return err
}

// ExitCode maps what a job returned (after Material) to its exit code.
// Usage errors are usage.Error and the errors of the domain packages that
// name the caller's mistake: a configuration key, an unknown snapshot, a
// statement that does not prepare.
func ExitCode(ctx context.Context, err error) int {
	var (
		u       usage.Error
		m       MaterialError
		cfg     *configkey.Error
		unknown *reconcile.UnknownSnapshotError
		notRec  *reconcile.NotReconciledError
		stmt    *readmodel.StatementError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &u), errors.As(err, &cfg), errors.As(err, &unknown), errors.As(err, &notRec), errors.As(err, &stmt):
		return ExitUsage
	case errors.As(err, &m):
		return ExitMaterial
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return ExitInterrupted
	}
	return ExitFailure
}
