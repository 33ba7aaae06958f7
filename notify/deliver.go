package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/smtp"
	"net/textproto"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/billsnap/billsnap/internal/snip"
)

// target is a place a message goes: a webhook or an email.
type target struct {
	name string
	on   []string
	send func(ctx context.Context, m Message) error
}

// permanent is an error trying again will not mend: a 4xx answer (but
// 408 and 429), a 5xx SMTP reply, a target's own file unreadable.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// isPermanent tells whether err is one trying again will not mend.
func isPermanent(err error) bool {
	var p permanent
	var tp *textproto.Error
	return errors.As(err, &p) || (errors.As(err, &tp) && tp.Code >= 500)
}

// Attempts and Backoff bound a delivery: a message is tried up to
// Attempts times, Backoff, then twice it, between tries (an error trying
// again will not mend ends it early); each try may take TryTimeout.
const (
	Attempts   = 4
	Backoff    = time.Second
	TryTimeout = 10 * time.Second
)

// webhookTarget posts to w; the URL (a secret for Slack and Teams) is read
// when sending and never appears in an error.
func webhookTarget(w Webhook, i int, client *http.Client) target {
	return target{name: w.name(i), on: w.On, send: func(ctx context.Context, m Message) error {
		u := w.URL
		if w.URLFile != "" {
			b, err := os.ReadFile(w.URLFile)
			if err != nil {
				return permanent{fmt.Errorf("url_file: %w", err)}
			}
			u = strings.TrimSpace(string(b))
			if err := checkURL(u, w.AllowInsecureHTTP); err != nil {
				return permanent{fmt.Errorf("url_file: %w", err)}
			}
		}
		body, err := webhookBody(w.Format, m)
		if err != nil {
			return err
		}
		return post(ctx, client, u, body)
	}}
}

// post sends body to u and wants a 2xx answer.
func post(ctx context.Context, client *http.Client, u string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, TryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return errors.New("the request cannot be made")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "billsnap")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is a secret
		}
		return fmt.Errorf("POST: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode/100 == 2:
	case resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests:
		return permanent{fmt.Errorf("POST: answered %s", resp.Status)}
	default:
		return fmt.Errorf("POST: answered %s", resp.Status)
	}
	return nil
}

// webhookBody is m in a webhook's format, its text escaped for the chat
// it goes to (slackText, teamsText). No line of it is longer than
// snip.Line: the json format is indented, a key a line, each value
// bounded (Message.bounded); a chat's body is one line, its text cut to
// fit (fitted).
func webhookBody(format string, m Message) ([]byte, error) {
	m = m.bounded()
	switch format {
	case "slack":
		return fitted(m.text(), func(text string) ([]byte, error) {
			return json.Marshal(map[string]string{"text": slackText(text)})
		})
	case "teams":
		return fitted(m.text(), func(text string) ([]byte, error) {
			summary, rest, _ := strings.Cut(teamsText(text), "\n")
			card := map[string]any{"$schema": "http://adaptivecards.io/schemas/adaptive-card.json", "type": "AdaptiveCard", "version": "1.4",
				"body": []map[string]any{{"type": "TextBlock", "text": summary, "weight": "Bolder", "wrap": true}, {"type": "TextBlock", "text": rest, "wrap": true}}}
			return json.Marshal(map[string]any{"type": "message",
				"attachments": []map[string]any{{"contentType": "application/vnd.microsoft.card.adaptive", "content": card}}})
		})
	}
	return json.MarshalIndent(m, "", "  ")
}

// fitted is body(text), text cut (snip.String) until the body is at most
// snip.Line bytes.
func fitted(text string, body func(string) ([]byte, error)) ([]byte, error) {
	b, err := body(text)
	for limit := len(text); err == nil && len(b) > snip.Line && limit > 64; {
		limit = max(64, limit*(snip.Line-256)/len(b))
		b, err = body(snip.String(text, limit))
	}
	return b, err
}

// emailTarget mails m to e.To, over TLS (STARTTLS or implicit) only.
func emailTarget(e Email, getenv func(string) string, now func() time.Time) target {
	name := e.Name
	if name == "" {
		name = "email"
	}
	return target{name: name, on: e.On, send: func(ctx context.Context, m Message) error {
		password, err := e.password(getenv)
		if err != nil {
			return permanent{err}
		}
		return e.send(ctx, password, mail(e, m, now()))
	}}
}

func (e Email) password(getenv func(string) string) (string, error) {
	switch {
	case e.PasswordFile != "":
		b, err := os.ReadFile(e.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("password_file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	case e.PasswordEnv != "":
		return getenv(e.PasswordEnv), nil
	}
	return "", nil
}

// mail is the message as mail: headers and a plain text body.
func mail(e Email, m Message, now time.Time) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\n", e.From, strings.Join(e.To, ", "), m.Summary, now.Format(time.RFC1123Z))
	fmt.Fprintf(&b, "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	b.WriteString(strings.ReplaceAll(m.text(), "\n", "\r\n"))
	return b.Bytes()
}

// send speaks SMTP to e.Host: TLS first (implicit) or after STARTTLS,
// which it requires; then AUTH PLAIN when there is a user.
func (e Email) send(ctx context.Context, password string, msg []byte) error {
	conf := &tls.Config{ServerName: e.Host, MinVersion: tls.VersionTLS12}
	if e.CAFile != "" {
		pem, err := os.ReadFile(e.CAFile)
		if err != nil {
			return fmt.Errorf("ca_file: %w", err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return errors.New("ca_file holds no PEM certificate")
		}
	}
	addr := net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
	d := &net.Dialer{Timeout: TryTimeout}
	var conn net.Conn
	var err error
	if e.TLS == "implicit" {
		conn, err = (&tls.Dialer{NetDialer: d, Config: conf}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return err
	}
	conn.SetDeadline(time.Now().Add(2 * TryTimeout))
	c, err := smtp.NewClient(conn, e.Host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	return e.converse(c, conf, password, msg)
}

func (e Email) converse(c *smtp.Client, conf *tls.Config, password string, msg []byte) error {
	if e.TLS != "implicit" {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return errors.New("the server offers no STARTTLS: mail is never sent in the clear")
		}
		if err := c.StartTLS(conf); err != nil {
			return fmt.Errorf("STARTTLS: %w", err)
		}
	}
	if e.User != "" {
		if err := c.Auth(smtp.PlainAuth("", e.User, password, e.Host)); err != nil {
			return fmt.Errorf("AUTH: %w", err)
		}
	}
	if err := c.Mail(e.From); err != nil {
		return err
	}
	for _, to := range e.To {
		if err := c.Rcpt(to); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}
