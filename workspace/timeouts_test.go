package workspace

import (
	"bufio"
	"io"
	"net"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// bareWorkspace is a workspace over an empty store, with the shared token
// and set's options.
func bareWorkspace(t *testing.T, set func(*Options)) *Server {
	t.Helper()
	dir := t.TempDir()
	o := Options{Store: storeconfig.Options{Out: dir}, Ledger: ledger.New(filepath.Join(dir, "ledger.jsonl"), time.Now),
		PageSize: 25, Log: quiet, Now: time.Now, Token: "shared-token-0123456789"}
	set(&o)
	ws, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// A client that sends half its body and stops is let go at the Read
// timeout, one that sends half its header at ReadHeader, and one that
// says nothing after its answer at Idle; in a bubble, with no real wait.
func TestSlowClientsAreLetGo(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		sent string
		by   time.Duration
	}{
		"half a body":   {"POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntoken=", 5 * time.Second},
		"half a header": {"GET / HTTP/1.1\r\nHost: local", 2 * time.Second},
		"then nothing":  {"GET /login HTTP/1.1\r\nHost: localhost\r\n\r\n", 3 * time.Second},
	} {
		synctest.Test(t, func(t *testing.T) {
			ws := bareWorkspace(t, func(o *Options) {
				o.Timeouts = Timeouts{ReadHeader: 2 * time.Second, Read: 5 * time.Second, Idle: 3 * time.Second}
			})
			l := newPipeListener()
			srv := ws.HTTPServer()
			go srv.Serve(l)
			conn := l.dial()
			start := time.Now()
			io.WriteString(conn, c.sent)
			io.Copy(io.Discard, bufio.NewReader(conn))
			if took := time.Since(start); took > c.by {
				t.Errorf("%s held the connection %s", name, took)
			}
			conn.Close()
			srv.Close()
		})
	}
}

// pipeListener hands the server the far ends of net.Pipes, so that a
// bubble's fake clock drives their deadlines.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "127.0.0.1:1" }
