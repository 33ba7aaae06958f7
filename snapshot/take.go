package snapshot

import (
	"context"
	"errors"
)

// Finish ends the run once its walks have (walked, their error): a
// snapshot whose walks all succeeded is published; otherwise, or when the
// publish fails, it is recorded as failed, with the error's message passed
// through redact (which takes the API key out), and nothing of it is
// published.
func (r *Run) Finish(ctx context.Context, walked error, redact func(string) string) (*Summary, error) {
	if walked == nil {
		sum, err := r.Publish(ctx)
		if err == nil {
			return sum, nil
		}
		walked = err
	}
	msg := redact(walked.Error())
	if errors.Is(walked, context.Canceled) {
		msg = "interrupted: " + msg
	}
	if err := r.Fail(msg); err != nil {
		return nil, errors.Join(walked, err)
	}
	return nil, walked
}
