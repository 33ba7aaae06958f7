package extract

import (
	"errors"
	"time"

	"github.com/billsnap/billsnap/configkey"
)

// Retry bounds the retries of one request: the retry key of the
// configuration.
type Retry struct {
	MaxAttempts   int           `yaml:"max_attempts"`    // attempts in all, the first included
	InitialDelay  time.Duration `yaml:"initial_delay"`   // first backoff, before jitter
	MaxDelay      time.Duration `yaml:"max_delay"`       // largest backoff
	MaxRetryAfter time.Duration `yaml:"max_retry_after"` // a longer Retry-After fails the request
}

// Validate returns what is wrong with r, each a *configkey.Error whose
// key is relative to r's (configkey.Under puts it under retry).
func (r Retry) Validate() error {
	var errs []error
	if r.MaxAttempts < 1 || r.MaxAttempts > 100 {
		errs = append(errs, configkey.Errorf("max_attempts", "must be from 1 to 100, not %d", r.MaxAttempts))
	}
	if r.InitialDelay <= 0 || r.MaxDelay < r.InitialDelay {
		errs = append(errs, configkey.Errorf("", "initial_delay must be positive and max_delay at least initial_delay"))
	}
	if r.MaxRetryAfter <= 0 {
		errs = append(errs, configkey.Errorf("max_retry_after", "must be a positive duration"))
	}
	return errors.Join(errs...)
}
