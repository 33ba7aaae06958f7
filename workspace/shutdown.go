package workspace

import (
	"context"
	"net"
	"net/http"
	"time"
)

// shutdownGrace is how long requests under way are given to end once
// serve is told to stop.
const shutdownGrace = 5 * time.Second

// serveUntil serves srv on l until ctx ends, then stops it: requests
// under way get grace to end, and those still running then have their
// connections closed, which cancels their contexts, so that a download a
// client reads slowly (or never) keeps neither serve nor the read model
// it holds from stopping. The error is Shutdown's (a request outlasted
// grace), or Serve's when it ended first.
func serveUntil(ctx context.Context, srv *http.Server, l net.Listener, grace time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
	}
	<-done
	return err
}
