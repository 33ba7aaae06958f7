package ingest

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
)

// Target is what the walks of a snapshot write to: a sink for each
// collection's table, and the result of each walk when it ends.
type Target interface {
	Sink(table string) extract.Sink
	Walked(res extract.Result)
}

// Walk walks every collection with w concurrently, each into the sink t
// gives for its table, and hands each walk's result to t. A walk that
// fails stops the others; the first error is returned.
func Walk(ctx context.Context, w *extract.Walker, colls []catalog.Collection, t Target) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range colls {
		g.Go(func() error {
			res, err := w.Walk(gctx, extract.Collection(c), t.Sink(c.Table))
			t.Walked(res)
			return err
		})
	}
	return g.Wait()
}
