// Package configkey is the error of one configuration key that is wrong.
// config returns it, and so do the packages whose options the
// configuration composes (extract's retry, snapshot's store options and
// field mapping, reconcile's materiality), so that every message names the
// key to fix and every such error is a usage error.
package configkey

import (
	"errors"
	"fmt"
)

// Error is a problem with one configuration key.
type Error struct {
	Key string // dotted YAML key, such as retry.max_attempts
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("config key %s: %s", e.Key, e.Msg) }

// Errorf is an *Error for key with a formatted message.
func Errorf(key, format string, args ...any) *Error {
	return &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Under puts the keys of the *Errors in err (joined or alone) under
// prefix: max_attempts under retry is retry.max_attempts, [nightly].spec
// under schedules is schedules[nightly].spec, "" under retry is retry.
// Other errors are kept as they are.
func Under(prefix string, err error) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = Under(prefix, e)
		}
		return errors.Join(out...)
	}
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	key := prefix
	switch {
	case e.Key == "":
	case e.Key[0] == '[':
		key += e.Key
	default:
		key += "." + e.Key
	}
	return &Error{Key: key, Msg: e.Msg}
}
