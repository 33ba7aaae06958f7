package workspace

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
	"time"
)

// A request still running when the grace after a stop ends has its
// connection closed and its context cancelled: serve stops, and the
// handler ends (and lets go of what it holds), however long the request
// would have taken.
func TestServeStopsARequestThatOutlastsTheGrace(t *testing.T) {
	t.Parallel()
	entered, ended := make(chan struct{}), make(chan struct{})
	srv := &http.Server{ErrorLog: log.New(io.Discard, "", 0), Handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done() // a download its client no longer reads
		close(ended)
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveUntil(ctx, srv, l, 10*time.Millisecond) }()
	go func() {
		if resp, err := http.Get("http://" + l.Addr().String()); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	stop()
	for what, ch := range map[string]<-chan struct{}{"serve": done(served), "the handler": ended} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still runs 10 s after the stop", what)
		}
	}
}

// done is closed once ch gives its value.
func done(ch <-chan error) <-chan struct{} {
	out := make(chan struct{})
	go func() { <-ch; close(out) }()
	return out
}
