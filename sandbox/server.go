package sandbox

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Server is a sandbox listening on a TCP address. Its URL serves as both
// base_url and front_url.
type Server struct {
	*Sandbox
	URL string // http://host:port
	srv *http.Server
}

// Start serves sb on addr ("127.0.0.1:0" picks a free port) until Close.
func Start(addr string, sb *Sandbox) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: sb.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic("sandbox: serve: " + err.Error())
		}
	}()
	return &Server{Sandbox: sb, URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// BaseURL is {base_url}.
func (s *Server) BaseURL() string { return s.URL }

// FrontURL is {front_url}.
func (s *Server) FrontURL() string { return s.URL }

// Close stops serving at once, dropping open connections.
func (s *Server) Close() error { return s.srv.Close() }

// Shutdown stops accepting requests and waits for those under way.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }
