package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// MaxBodyBytes bounds one response body; a larger one is bad input.
const MaxBodyBytes = 64 << 20

// Options configure a Client.
type Options struct {
	BaseURL, FrontURL string
	Secret            *Secret
	Concurrency       int           // requests in flight
	Timeout           time.Duration // one request, body included
	Retry             Retry
	Clock             Clock        // nil: RealClock
	Log               *slog.Logger // nil: discard
	Transport         http.RoundTripper
}

// Client fetches pages. It sends the API key only to the origins of
// BaseURL and FrontURL, follows no redirect to another origin, retries 5xx,
// 429 (after Retry-After), timeouts, resets and truncated bodies with
// exponential backoff and jitter, and returns other errors decoded.
type Client struct {
	http    *http.Client
	secret  *Secret
	origins map[string]bool
	gate    *Gate
	clock   Clock
	retry   Retry
	timeout time.Duration
	log     *slog.Logger
	said    *retryLog

	requests, retries, throttles, answers atomic.Int64
}

// NewClient makes a client; BaseURL and FrontURL must be absolute.
func NewClient(o Options) (*Client, error) {
	c := &Client{secret: o.Secret, origins: map[string]bool{}, clock: o.Clock, retry: o.Retry, timeout: o.Timeout, log: o.Log}
	for _, u := range []string{o.BaseURL, o.FrontURL} {
		org, err := origin(u)
		if err != nil {
			return nil, fmt.Errorf("service URL %s: %w", RedactURL(u), err)
		}
		c.origins[org] = true
	}
	if c.clock == nil {
		c.clock = RealClock{}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.said = newRetryLog(c.log, c.clock.Now)
	c.gate = NewGate(o.Concurrency, c.clock)
	tr := o.Transport
	if tr == nil {
		tr = newTransport(o.Concurrency, o.Timeout)
	}
	c.http = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	return c, nil
}

func newTransport(conns int, timeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4 * conns,
		MaxIdleConnsPerHost:   2 * conns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: timeout,
	}
}

// checkRedirect follows a redirect only within the origin it started from.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	from, _ := origin(via[0].URL.String())
	if to, _ := origin(req.URL.String()); to != from {
		return fmt.Errorf("refused a redirect to another host, %s", req.URL.Host)
	}
	if len(via) >= 5 {
		return errors.New("more than 5 redirects")
	}
	return nil
}

// Allowed reports whether the client would send the key to rawURL.
func (c *Client) Allowed(rawURL string) bool {
	org, err := origin(rawURL)
	return err == nil && c.origins[org]
}

// Stats are the client's counters so far: requests sent, retries,
// throttles, and answers (responses of any status).
type Stats struct{ Requests, Retries, Throttles, Answers int64 }

func (c *Client) Stats() Stats {
	return Stats{c.requests.Load(), c.retries.Load(), c.throttles.Load(), c.answers.Load()}
}

// Gate is the client's concurrency gate.
func (c *Client) Gate() *Gate { return c.gate }

// retryable is a failure worth another attempt, after at least wait.
type retryable struct {
	err  error
	wait time.Duration
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// GetPage fetches and decodes one page of coll, retrying as the client does.
func (c *Client) GetPage(ctx context.Context, coll Collection, rawURL string) (*Page, error) {
	if !c.Allowed(rawURL) {
		return nil, &ForeignHostError{URL: rawURL}
	}
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval = c.retry.InitialDelay, c.retry.MaxDelay
	for attempt := 1; ; attempt++ {
		page, err := c.try(ctx, coll, rawURL)
		var r *retryable
		if err == nil || !errors.As(err, &r) {
			return page, err
		}
		if attempt >= c.retry.MaxAttempts {
			return nil, fmt.Errorf("gave up after %d attempts: %w", attempt, r.err)
		}
		wait := b.NextBackOff()
		if r.wait > 0 {
			if r.wait > c.retry.MaxRetryAfter {
				return nil, fmt.Errorf("the service asks to retry after %s, more than retry.max_retry_after (%s): %w", r.wait, c.retry.MaxRetryAfter, r.err)
			}
			wait = r.wait
		}
		c.retries.Add(1)
		c.logRetry(coll, rawURL, attempt, wait, r)
		if err := c.clock.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// logRetry tells of a retry (retryLog): after which attempt of how many,
// how long it waits and why; a 429 also says how many requests may now be
// in flight.
func (c *Client) logRetry(coll Collection, rawURL string, attempt int, wait time.Duration, r *retryable) {
	args := []any{"collection", coll.Table, "url", RedactURL(rawURL), "attempt", fmt.Sprintf("%d of %d", attempt, c.retry.MaxAttempts),
		"wait", wait.Round(time.Millisecond), "error", r.err}
	if r.wait > 0 {
		c.said.note(r.err, "the service throttles: waiting for its Retry-After", append(args, "in_flight", c.gate.Limit())...)
		return
	}
	c.said.note(r.err, "retrying", args...)
}

// try is one attempt: one request through the gate, its body read and decoded.
func (c *Client) try(ctx context.Context, coll Collection, rawURL string) (*Page, error) {
	if err := c.gate.Acquire(ctx); err != nil {
		return nil, err
	}
	defer c.gate.Release()
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newRequest(rctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, badPage("cannot request %s: %v", RedactURL(rawURL), err)
	}
	if coll.Front {
		req.Header.Set("x-version", "nxt")
	}
	c.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	c.answers.Add(1)
	defer resp.Body.Close()
	body, err := readBody(resp)
	if err != nil {
		return nil, c.transportError(ctx, fmt.Errorf("reading the body: %w", err))
	}
	if len(body) > MaxBodyBytes {
		return nil, badPage("the body is larger than %d bytes", MaxBodyBytes)
	}
	page, err := c.answer(resp, body)
	return page, listNotFound(err, coll)
}

// newRequest is a request to the service with the headers every request
// carries (spec §5): the key, and JSON both ways.
func (c *Client) newRequest(ctx context.Context, method, rawURL string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", c.secret.Authorization())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// readBody reads at most MaxBodyBytes+1 bytes of resp's body. When the
// response gives its Content-Length, into one buffer of that size: a page
// costs its size once, rather than io.ReadAll's pieces and final copy. A
// body cut short is the transport's error (io.ErrUnexpectedEOF).
func readBody(resp *http.Response) ([]byte, error) {
	r := io.LimitReader(resp.Body, MaxBodyBytes+1)
	n := resp.ContentLength
	if n <= 0 || n > MaxBodyBytes {
		return io.ReadAll(r)
	}
	buf := make([]byte, 0, n+1) // one more, to see the end without growing
	for len(buf) < cap(buf) {
		k, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	rest, err := io.ReadAll(r)
	return append(buf, rest...), err
}

// answer turns a complete response into a page or a classified error.
func (c *Client) answer(resp *http.Response, body []byte) (*Page, error) {
	ct := resp.Header.Get("Content-Type")
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		wait := retryAfter(resp.Header.Get("Retry-After"), c.clock.Now())
		c.throttles.Add(1)
		c.gate.Throttle(wait)
		return nil, &retryable{err: decodeAPIError(resp.StatusCode, ct, body), wait: wait}
	case resp.StatusCode >= 500:
		return nil, &retryable{err: decodeAPIError(resp.StatusCode, ct, body)}
	case resp.StatusCode != http.StatusOK:
		return nil, decodeAPIError(resp.StatusCode, ct, body)
	}
	c.gate.Success()
	if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" {
		return nil, badPage("the response is %s, not JSON: %s", orNone(ct), snippet(body))
	}
	page, err := decodeOwned(body)
	if errors.Is(err, truncatedJSON) {
		return nil, &retryable{err: err}
	}
	return page, err
}

// transportError classifies a failure to get a complete response: retried
// unless the run itself was cancelled.
func (c *Client) transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The request's own deadline (the config key timeout), not the
		// caller's: say so, whichever of it and the transport's header
		// timeout fired first.
		err = fmt.Errorf("timeout after %s (config key timeout): %w", c.timeout, err)
	}
	return &retryable{err: err}
}

// retryAfter reads Retry-After as seconds or an HTTP date; 0 when absent.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// ForeignHostError is a URL on an origin other than the configured ones:
// no request is sent to it.
type ForeignHostError struct{ URL string }

func (e *ForeignHostError) Error() string {
	org, _ := origin(e.URL)
	return fmt.Sprintf("NextPage points to another host, %s (%s); not requested, the API key is sent only to base_url and front_url", org, RedactURL(e.URL))
}

// Redact removes the API key, in any of its encodings, from text.
func (c *Client) Redact(text string) string { return c.secret.Redact(text) }
