// Package usage is the error of a caller's mistake: a flag, an argument or
// the configuration, which billsnap's commands exit with 2 for (job's
// ExitCode). It stands alone, as configkey does, so that a package that
// only checks what its caller asked (a flag's value, a format's name)
// names the mistake without importing the jobs, and the store behind them.
package usage

import "fmt"

// Error is the caller's mistake: a flag, an argument or the
// configuration (exit 2).
type Error struct{ Err error }

func (e Error) Error() string { return e.Err.Error() }
func (e Error) Unwrap() error { return e.Err }

// Wrap marks err as the caller's mistake (exit 2).
func Wrap(err error) error { return Error{err} }

// Errorf is an Error with a formatted message.
func Errorf(format string, args ...any) error { return Error{fmt.Errorf(format, args...)} }
