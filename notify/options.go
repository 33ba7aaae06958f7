package notify

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/journal"
)

// Events a target can take.
const (
	Material = journal.EventMaterial // material findings new since the last notification
	Failure  = "failure"             // a job failed (exit 1), was refused or killed
	Stale    = "stale"               // no complete snapshot for longer than stale_after
	Resolved = journal.EventResolved // material findings announced before are gone
	Overdue  = journal.EventOverdue  // an assigned finding past its due date, once per finding and due date
	Test     = "test"                // billsnap notify test
)

// Events are the events of a target's on key.
var Events = []string{Material, Failure, Stale, Resolved, Overdue}

// Formats are the bodies a webhook takes.
var Formats = []string{"json", "slack", "teams"}

// Options is the notify section of the configuration.
type Options struct {
	Webhooks []Webhook `yaml:"webhooks"`
	Email    *Email    `yaml:"email"`
	// StaleAfter: no complete snapshot for this long is the stale event;
	// 0 never.
	StaleAfter Duration `yaml:"stale_after"`
	// Remind sends recurring material findings again after this long; 0
	// never.
	Remind Duration `yaml:"remind"`
	// WorkspaceURL is where the finance workspace is, for the messages.
	WorkspaceURL string `yaml:"workspace_url"`
}

// Webhook is a target that takes an HTTP POST.
type Webhook struct {
	Name              string   `yaml:"name"`     // in logs, metrics and the record; default webhook-N
	URL               string   `yaml:"url"`      // or
	URLFile           string   `yaml:"url_file"` // a file holding it (the URL of a Slack or Teams webhook is a secret)
	Format            string   `yaml:"format"`   // json, slack or teams
	On                []string `yaml:"on"`
	AllowInsecureHTTP bool     `yaml:"allow_insecure_http"` // plain http to a host that is not loopback
}

// Email is a target that takes mail over SMTP.
type Email struct {
	Name         string   `yaml:"name"` // default email
	Host         string   `yaml:"host"`
	Port         int      `yaml:"port"`
	TLS          string   `yaml:"tls"` // starttls (default) or implicit
	CAFile       string   `yaml:"ca_file"`
	User         string   `yaml:"user"`
	PasswordEnv  string   `yaml:"password_env"`  // the variable that holds the password, or
	PasswordFile string   `yaml:"password_file"` // the file that does
	From         string   `yaml:"from"`
	To           []string `yaml:"to"`
	On           []string `yaml:"on"`
}

// Targets says whether any target is configured.
func (o Options) Targets() bool { return len(o.Webhooks) > 0 || o.Email != nil }

// Duration is a time.Duration that also reads whole days: 7d, 26h, 90m.
type Duration time.Duration

// UnmarshalYAML reads a Go duration or N days (Nd).
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes it as ParseDuration reads it.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// ParseDuration reads a Go duration (26h, 90m) or whole days (7d).
func ParseDuration(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a duration such as 26h or 7d", s)
	}
	return v, nil
}

// Validate returns every problem of o, each a *configkey.Error naming its
// key (under notify). getenv reads the environment, for password_env.
func (o Options) Validate(getenv func(string) string) error {
	var errs []error
	bad := func(key, format string, args ...any) { errs = append(errs, configkey.Errorf(key, format, args...)) }
	names := map[string]bool{}
	for i, w := range o.Webhooks {
		key := fmt.Sprintf("webhooks[%d]", i)
		name := w.name(i)
		if names[name] {
			bad(key+".name", "%q names two targets", name)
		}
		names[name] = true
		switch {
		case (w.URL == "") == (w.URLFile == ""):
			bad(key, "give url or url_file, one of them")
		case w.URL != "":
			if err := checkURL(w.URL, w.AllowInsecureHTTP); err != nil {
				bad(key+".url", "%v", err)
			}
		default:
			if _, err := os.Stat(w.URLFile); err != nil {
				bad(key+".url_file", "%v", err)
			}
		}
		if !slices.Contains(Formats, w.Format) {
			bad(key+".format", "must be one of %s, not %q", strings.Join(Formats, ", "), w.Format)
		}
		errs = append(errs, configkey.Under(key, checkOn(w.On)))
	}
	if o.Email != nil {
		errs = append(errs, configkey.Under("email", o.Email.validate(getenv)))
	}
	if o.WorkspaceURL != "" {
		if u, err := url.Parse(o.WorkspaceURL); err != nil || u.Host == "" {
			bad("workspace_url", "not a URL: %q", o.WorkspaceURL)
		}
	}
	return errors.Join(errs...)
}

func (w Webhook) name(i int) string {
	if w.Name != "" {
		return w.Name
	}
	return fmt.Sprintf("webhook-%d", i+1)
}

func checkOn(on []string) error {
	if len(on) == 0 {
		return configkey.Errorf("on", "names no event: want some of %s", strings.Join(Events, ", "))
	}
	for _, e := range on {
		if !slices.Contains(Events, e) {
			return configkey.Errorf("on", "no event %q: want some of %s", e, strings.Join(Events, ", "))
		}
	}
	return nil
}

// checkURL refuses a URL that is not http(s), holds credentials in its
// user part, or is plain http to a host that is not loopback.
func checkURL(raw string, insecure bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("not an http(s) URL")
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return errors.New("not an http(s) URL")
	case u.User != nil:
		return errors.New("holds credentials in its user part; put a secret URL in url_file")
	case u.Scheme == "http" && !insecure && !loopback(u.Hostname()):
		return errors.New("plain http to a host that is not loopback: use https, or set allow_insecure_http")
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (e Email) validate(getenv func(string) string) error {
	var errs []error
	bad := func(key, format string, args ...any) { errs = append(errs, configkey.Errorf(key, format, args...)) }
	if e.Host == "" {
		bad("host", "is required")
	}
	if e.Port < 1 || e.Port > 65535 {
		bad("port", "must be a port number, not %d", e.Port)
	}
	if e.TLS != "" && e.TLS != "starttls" && e.TLS != "implicit" {
		bad("tls", "must be starttls or implicit, not %q (mail is never sent in the clear)", e.TLS)
	}
	if e.CAFile != "" {
		if _, err := os.Stat(e.CAFile); err != nil {
			bad("ca_file", "%v", err)
		}
	}
	if e.PasswordEnv != "" && e.PasswordFile != "" {
		bad("password_env", "give password_env or password_file, not both")
	}
	if e.PasswordEnv != "" && getenv(e.PasswordEnv) == "" {
		bad("password_env", "the variable %s is not set", e.PasswordEnv)
	}
	if e.PasswordFile != "" {
		if _, err := os.Stat(e.PasswordFile); err != nil {
			bad("password_file", "%v", err)
		}
	}
	if e.User != "" && e.PasswordEnv == "" && e.PasswordFile == "" {
		bad("user", "needs password_env or password_file (a password is never in the configuration)")
	}
	if !strings.Contains(e.From, "@") {
		bad("from", "is not an address: %q", e.From)
	}
	if len(e.To) == 0 {
		bad("to", "names no address")
	}
	for _, to := range e.To {
		if !strings.Contains(to, "@") {
			bad("to", "is not an address: %q", to)
		}
	}
	return errors.Join(append(errs, checkOn(e.On))...)
}
