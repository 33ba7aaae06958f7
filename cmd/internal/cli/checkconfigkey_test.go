package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// check-config probes the service with the key: a wrong key is exit 1
// naming where the key came from (BILLSNAP_API_KEY, the file
// BILLSNAP_API_KEY_FILE names, --api-key-file), never the key; the right
// key is accepted with one request; --offline sends none.
func TestCheckConfigProbesTheServiceWithTheKey(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 10}, "")
	dir := t.TempDir()
	const wrong = "wrong-key-7c7c7c7c7c"
	wrongFile, rightFile := filepath.Join(dir, "wrong.key"), filepath.Join(dir, "right.key")
	os.WriteFile(wrongFile, []byte(wrong+"\n"), 0o600)
	os.WriteFile(rightFile, []byte(exportKey+"\n"), 0o600)
	base := []string{"check-config", "--out", filepath.Join(dir, "out")}
	for _, tc := range []struct {
		name string
		args []string
		vars map[string]string
		code int
		want string
	}{
		{"env", nil, map[string]string{"BILLSNAP_API_KEY": wrong}, job.ExitFailure,
			"probing the service with the API key from BILLSNAP_API_KEY: GET "},
		{"env hint", nil, map[string]string{"BILLSNAP_API_KEY": wrong}, job.ExitFailure,
			"(Unit of Measure, Authentication Failure)"},
		{"env hint line", nil, map[string]string{"BILLSNAP_API_KEY": wrong}, job.ExitFailure,
			"/)\n  the service refused the API key from BILLSNAP_API_KEY: check the key there\n"},
		{"env file", nil, map[string]string{"BILLSNAP_API_KEY": exportKey, "BILLSNAP_API_KEY_FILE": wrongFile}, job.ExitFailure,
			"the service refused the API key from BILLSNAP_API_KEY_FILE (the file " + wrongFile + "): check the key there"},
		{"flag", []string{"--api-key-file", wrongFile}, map[string]string{"BILLSNAP_API_KEY_FILE": rightFile}, job.ExitFailure,
			"the service refused the API key from --api-key-file " + wrongFile + ": check the key there"},
		{"right", nil, map[string]string{"BILLSNAP_API_KEY_FILE": rightFile}, job.ExitOK,
			"  service:   the API key (from BILLSNAP_API_KEY_FILE (the file " + rightFile + ")) accepted: GET " + srv.FrontURL() + "/UnitsOfMeasure/?page=1 answered\n"},
		{"offline", []string{"--offline"}, map[string]string{"BILLSNAP_API_KEY": wrong}, job.ExitOK, "  service:   not probed (--offline)\n"},
	} {
		vars := map[string]string{"BILLSNAP_BASE_URL": srv.BaseURL(), "BILLSNAP_FRONT_URL": srv.FrontURL()}
		for k, v := range tc.vars {
			vars[k] = v
		}
		before := srv.Requests()
		var out, errb bytes.Buffer
		code := runWith(context.Background(), append(base, tc.args...), &out, &errb, func(k string) string { return vars[k] })
		got := out.String() + errb.String()
		if code != tc.code || !strings.Contains(got, tc.want) {
			t.Errorf("%s: exit %d (want %d)\n%s\nwant %q", tc.name, code, tc.code, got, tc.want)
		}
		if strings.Contains(got, wrong) || strings.Contains(got, exportKey) {
			t.Errorf("%s: the key appears in the output", tc.name)
		}
		if n, want := srv.Requests()-before, map[bool]int64{true: 0, false: 1}[tc.name == "offline"]; n != want {
			t.Errorf("%s: %d requests to the service, want %d", tc.name, n, want)
		}
	}
}

// A key read again (a rotation) leaves the keys read before it redacted
// too: a key rotated away is still a secret.
func TestEveryKeyReadIsRedacted(t *testing.T) {
	env := newEnv(&bytes.Buffer{}, &bytes.Buffer{}, noEnv)
	env.setSecret(extract.NewSecret("first-key-1111"))
	env.setSecret(extract.NewSecret("second-key-2222"))
	env.setSecret(extract.NewSecret("first-key-1111"))
	if got := env.redact("a first-key-1111 b second-key-2222 c"); got != "a [REDACTED] b [REDACTED] c" {
		t.Errorf("redacted: %q", got)
	}
}
