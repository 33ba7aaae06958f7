package job

import (
	"context"
	"fmt"
	"strings"
)

// Interruption says in words why a job that exits ExitInterrupted
// stopped: the signal that stopped it when the context's cause names one
// (signal.NotifyContext sets it), else the cause, else err.
func Interruption(ctx context.Context, err error) string {
	cause := context.Cause(ctx)
	if cause == nil {
		cause = err
	}
	by := "(cancelled)"
	if cause != nil {
		by = "(" + cause.Error() + ")"
		if sig, ok := signalName(cause.Error()); ok {
			by = "by " + sig
		}
	}
	return fmt.Sprintf("interrupted %s before it finished (exit %d)", by, ExitInterrupted)
}

// signalName is the name of the signal a cause from signal.NotifyContext
// names ("terminated signal received").
func signalName(cause string) (string, bool) {
	name, ok := strings.CutSuffix(cause, " signal received")
	if !ok {
		return "", false
	}
	switch name {
	case "terminated":
		return "SIGTERM", true
	case "interrupt":
		return "SIGINT", true
	}
	return "the signal " + name, true
}
