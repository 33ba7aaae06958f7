// Package notifytest serves the targets of notifications to tests, in
// process and over real connections: an HTTP receiver of webhooks, and an
// SMTP server (emersion/go-smtp) that offers STARTTLS on a self-signed
// certificate and takes AUTH PLAIN.
package notifytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/billsnap/billsnap/internal/syncbuf"
)

// Receiver is a webhook endpoint that keeps every body posted to it.
type Receiver struct {
	URL    string
	mu     sync.Mutex
	bodies [][]byte
	status int
}

// StartReceiver serves a webhook endpoint until the test ends; it
// answers status (200 when 0).
func StartReceiver(t testing.TB, status int) *Receiver {
	r := &Receiver{status: status}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, b)
		r.mu.Unlock()
		if r.status != 0 {
			w.WriteHeader(r.status)
		}
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hooks/T000/B000/secret-token"
	return r
}

// Bodies are the bodies posted so far, in order.
func (r *Receiver) Bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}

// SMTP is a mail server that keeps every message and the whole
// conversation.
type SMTP struct {
	Host   string
	Port   int
	CAFile string // the PEM of its certificate, for ca_file
	User   string
	Pass   string
	mu     sync.Mutex
	mails  [][]byte
	log    *syncbuf.Buffer
}

// StartSMTP serves SMTP with STARTTLS (or, implicit, TLS from the first
// byte) on 127.0.0.1 until the test ends; it takes AUTH PLAIN of user and
// pass only.
func StartSMTP(t testing.TB, implicit bool, user, pass string) *SMTP {
	t.Helper()
	cert, pemBytes := selfSigned(t)
	s := &SMTP{Host: "127.0.0.1", User: user, Pass: pass, CAFile: filepath.Join(t.TempDir(), "ca.pem"), log: &syncbuf.Buffer{}}
	if err := os.WriteFile(s.CAFile, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := smtp.NewServer(backend{s})
	srv.Domain, srv.Debug = "localhost", s.log
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if implicit {
		l = tls.NewListener(l, srv.TLSConfig)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	s.Port = l.Addr().(*net.TCPAddr).Port
	return s
}

// Addr is host:port.
func (s *SMTP) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Mails are the messages taken so far (headers and body).
func (s *SMTP) Mails() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.mails...)
}

// Transcript is the conversation so far, as the server saw it (after
// TLS: in the clear).
func (s *SMTP) Transcript() string { return s.log.String() }

type backend struct{ s *SMTP }

func (b backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{s: b.s, tls: func() bool { _, ok := c.TLSConnectionState(); return ok }}, nil
}

type session struct {
	s      *SMTP
	tls    func() bool
	authed bool
}

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != x.s.User || pass != x.s.Pass {
			return errors.New("bad credentials")
		}
		x.authed = true
		return nil
	}), nil
}

func (x *session) Mail(string, *smtp.MailOptions) error {
	if !x.tls() || !x.authed {
		return errors.New("TLS and AUTH first")
	}
	return nil
}

func (x *session) Rcpt(string, *smtp.RcptOptions) error { return nil }

func (x *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	x.s.mu.Lock()
	x.s.mails = append(x.s.mails, b)
	x.s.mu.Unlock()
	return err
}

func (x *session) Reset()        {}
func (x *session) Logout() error { return nil }

// selfSigned is a certificate for 127.0.0.1 and localhost, and its PEM.
func selfSigned(t testing.TB) (tls.Certificate, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "billsnap test SMTP"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, _ := x509.MarshalECPrivateKey(key)
	cert, err := tls.X509KeyPair(pemBytes, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	return cert, pemBytes
}
