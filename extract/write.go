package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Answer is the service's answer to a write: its status and body, with
// the API key taken out, and the error the body decodes to when the
// status is not 2xx.
type Answer struct {
	Status int
	Body   string
	Err    *APIError // nil for 2xx
}

// UnknownFateError is a write whose answer never came whole (a timeout, a
// reset, a body cut short) or was a 5xx: the service may have made it or
// not. It must be read back before it is sent again.
type UnknownFateError struct{ Err error }

func (e *UnknownFateError) Error() string {
	return "the write's fate is unknown (read it back before sending it again): " + e.Err.Error()
}
func (e *UnknownFateError) Unwrap() error { return e.Err }

// Write sends one write (PUT or POST) of body to rawURL on base_url's
// origin, through the gate, with the key. It is never sent again blindly:
// only a 429, which says the service did nothing, is waited out (its
// Retry-After) and sent again; anything else that leaves its fate unknown
// is an *UnknownFateError.
func (c *Client) Write(ctx context.Context, method, rawURL string, body []byte) (Answer, error) {
	if !c.Allowed(rawURL) {
		return Answer{}, &ForeignHostError{URL: rawURL}
	}
	for attempt := 1; ; attempt++ {
		ans, err := c.writeOnce(ctx, method, rawURL, body)
		if err != nil || ans.Status != http.StatusTooManyRequests || attempt >= c.retry.MaxAttempts {
			return ans.Answer, err
		}
		wait := c.retry.InitialDelay
		var r *retryable
		if errors.As(ans.retry, &r) && r.wait > 0 {
			wait = min(r.wait, c.retry.MaxRetryAfter)
		}
		c.retries.Add(1)
		c.log.Info("the service throttles a write: waiting for its Retry-After", "url", RedactURL(rawURL), "wait", wait)
		if err := c.clock.Sleep(ctx, wait); err != nil {
			return ans.Answer, err
		}
	}
}

// writeOnce is one write request.
func (c *Client) writeOnce(ctx context.Context, method, rawURL string, body []byte) (writeAnswer, error) {
	if err := c.gate.Acquire(ctx); err != nil {
		return writeAnswer{}, err
	}
	defer c.gate.Release()
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(rctx, method, rawURL, bytes.NewReader(body))
	if err != nil {
		return writeAnswer{}, fmt.Errorf("cannot request %s: %v", RedactURL(rawURL), err)
	}
	c.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return writeAnswer{}, c.unknownFate(ctx, err)
	}
	c.answers.Add(1)
	defer resp.Body.Close()
	b, err := readBody(resp)
	if err != nil {
		return writeAnswer{}, c.unknownFate(ctx, fmt.Errorf("reading the body: %w", err))
	}
	ans := writeAnswer{Answer: Answer{Status: resp.StatusCode, Body: c.Redact(strings.TrimSpace(string(b)))}}
	ct := resp.Header.Get("Content-Type")
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		wait := retryAfter(resp.Header.Get("Retry-After"), c.clock.Now())
		c.throttles.Add(1)
		c.gate.Throttle(wait)
		ans.Err = decodeAPIError(resp.StatusCode, ct, b)
		ans.retry = &retryable{err: ans.Err, wait: wait}
	case resp.StatusCode >= 500:
		ans.Err = decodeAPIError(resp.StatusCode, ct, b)
		return ans, &UnknownFateError{Err: ans.Err}
	case resp.StatusCode >= 300:
		ans.Err = decodeAPIError(resp.StatusCode, ct, b)
	default:
		c.gate.Success()
	}
	return ans, nil
}

// writeAnswer is an answer and, for a 429, how long to wait.
type writeAnswer struct {
	Answer
	retry error
}

// unknownFate classifies a failure to get a write's answer.
func (c *Client) unknownFate(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &UnknownFateError{Err: ctx.Err()}
	}
	return &UnknownFateError{Err: errors.Unwrap(c.transportError(ctx, err))}
}
