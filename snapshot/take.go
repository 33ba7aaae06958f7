package snapshot

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"github.com/billsnap/billsnap/extract"
)

// Take walks every collection concurrently into a new snapshot and
// publishes it. A walk that fails stops the others; the snapshot is then
// recorded as failed (with the error, the key redacted) and nothing of it
// is published.
func (s *Store) Take(ctx context.Context, w *extract.Walker, colls []extract.Collection) (*Summary, error) {
	run, err := s.Begin(ctx, Meta{BaseURL: w.BaseURL, FrontURL: w.FrontURL})
	if err != nil {
		return nil, err
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range colls {
		g.Go(func() error {
			res, err := w.Walk(gctx, c, run.Sink(c.Table))
			run.Walked(res)
			return err
		})
	}
	err = g.Wait()
	var sum *Summary
	if err == nil {
		sum, err = run.Publish(ctx)
	}
	if err != nil {
		msg := w.Client.Redact(err.Error())
		if errors.Is(err, context.Canceled) {
			msg = "interrupted: " + msg
		}
		if ferr := run.Fail(msg); ferr != nil {
			err = errors.Join(err, ferr)
		}
		return nil, err
	}
	return sum, nil
}
