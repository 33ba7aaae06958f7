package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
)

// Validate checks every key and returns all problems, each an *Error.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &configkey.Error{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	for key, u := range map[string]string{"base_url": c.BaseURL, "front_url": c.FrontURL} {
		if msg := checkServiceURL(u, c.AllowInsecureHTTP); msg != "" && u != "" {
			bad(key, "%s", msg)
		}
	}
	checkRange := func(key string, v, lo, hi int) {
		if v < lo || v > hi {
			bad(key, "must be from %d to %d, not %d", lo, hi, v)
		}
	}
	checkRange("concurrency", c.Concurrency, 1, 256)
	checkRange("prefetch", c.Prefetch, 0, 1024)
	checkRange("max_rewalks", c.MaxRewalks, 0, 10)
	checkRange("export.max_records", c.Export.MaxRecords, 1, 2_000_000_000)
	checkRange("export.slack", c.Export.Slack, 10, 1000)
	if c.Export.Deadline < 0 {
		bad("export.deadline", "must be 0 (none) or a positive duration such as 6h")
	}
	if c.Timeout <= 0 {
		bad("timeout", "must be a positive duration such as 60s")
	}
	errs = append(errs, configkey.Under("retry", c.Retry.Validate()), c.Options.Validate())
	if !contains([]string{"auto", "bar", "log", "none"}, c.Progress) {
		bad("progress", "must be auto, bar, log or none, not %q", c.Progress)
	}
	for key, name := range map[string]string{"reports.dir": c.Reports.Dir, "metrics_file": c.MetricsFile} {
		if !storeconfig.NameInside(name) && (key != "metrics_file" || name != "") {
			bad(key, "must be a name inside out, not %q", name)
		}
	}
	if c.Reconcile.Grace < 0 {
		bad("reconcile.grace", "must not be negative")
	}
	errs = append(errs, configkey.Under("reconcile.materiality", c.Reconcile.Materiality.Validate()))
	errs = append(errs, configkey.Under("schedules", schedule.Validate(c.Schedules)))
	errs = append(errs, configkey.Under("iceberg", c.Iceberg.Validate()))
	errs = append(errs, configkey.Under("notify", c.Notify.Validate(os.Getenv)))
	errs = append(errs, configkey.Under("workspace", c.Workspace.Validate()))
	errs = append(errs, configkey.Under("worklist", c.Worklist.Validate()))
	errs = append(errs, configkey.Under("flux", c.Flux.Validate()))
	if c.Retention.Keep < 0 {
		bad("retention.keep", "must be 0 (keep all) or more")
	}
	if c.Retention.Runs < 0 {
		bad("retention.runs", "must be 0 or more")
	}
	if _, _, err := c.Retention.HistoryFor(); err != nil {
		bad("retention.history", "%v", err)
	}
	for _, f := range c.Reports.Formats {
		if !contains(reportFormats, f) {
			bad("reports.formats", "unknown format %q; known: %s", f, strings.Join(reportFormats, ", "))
		}
	}
	checkRange("reports.max_rows", c.Reports.MaxRows, 1, 1_000_000)
	checkRange("reports.trend", c.Reports.Trend, 1, 1000)
	return errors.Join(errs...)
}

// RequireService checks that both service URLs are set, for the commands
// that talk to the service (Validate checks their form).
func (c *Config) RequireService() error {
	var errs []error
	for _, k := range []struct{ key, flag, env, url string }{
		{"base_url", "--base-url", EnvBaseURL, c.BaseURL}, {"front_url", "--front-url", EnvFrontURL, c.FrontURL},
	} {
		if k.url == "" {
			errs = append(errs, configkey.Errorf(k.key, "is required: set it in the config file, with %s, or with %s", k.flag, k.env))
		}
	}
	return errors.Join(errs...)
}

// checkServiceURL returns what is wrong with a service URL, or "".
func checkServiceURL(raw string, allowInsecure bool) string {
	if raw == "" {
		return "is required"
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Sprintf("is not a URL: %v", err)
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Sprintf("must be an http or https URL, not %q", raw)
	case u.Host == "":
		return fmt.Sprintf("has no host: %q", raw)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return "must not carry credentials, a query or a fragment"
	case u.Scheme == "http" && !allowInsecure && !IsLoopback(u.Hostname()):
		return fmt.Sprintf("is plain http to %s, which is not loopback: use https, or allow_insecure_http (--allow-insecure-http) to send the API key in clear", u.Hostname())
	}
	return ""
}

// IsLoopback reports whether host names this machine: localhost or a
// loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
