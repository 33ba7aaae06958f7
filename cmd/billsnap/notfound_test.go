package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A list the service answers 404 for is a wrong URL, not a missing
// record: the error, in its first line, says to check base_url and
// front_url, and which of them the list is under.
func TestAListNotFoundSuggestsCheckingTheURLs(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 10}, "")
	for _, c := range []struct {
		name, base, front, under string
	}{
		{"base_url", srv.BaseURL() + "/nope", srv.FrontURL(), "base_url"},
		{"front_url", srv.BaseURL(), srv.FrontURL() + "/nope", "front_url"},
	} {
		vars := map[string]string{"BILLSNAP_API_KEY": sandboxtest.Key, "BILLSNAP_BASE_URL": c.base, "BILLSNAP_FRONT_URL": c.front}
		var out, errb bytes.Buffer
		code := e2etest.RunWith(context.Background(), []string{"export", "--out", t.TempDir(), "--progress", "none"}, &out, &errb, func(k string) string { return vars[k] })
		var first string
		for l := range strings.Lines(errb.String()) {
			if strings.HasPrefix(l, "billsnap export: ") {
				first = l
				break
			}
		}
		if code != job.ExitFailure || !strings.Contains(first, "HTTP 404") || !strings.Contains(first, "check base_url and front_url") || !strings.Contains(first, "under "+c.under+")") {
			t.Errorf("wrong %s: exit %d, error line %q; want exit 1 and a 404 that says to check base_url and front_url, the list under %s\n%s", c.name, code, first, c.under, errb.String())
		}
	}
}
