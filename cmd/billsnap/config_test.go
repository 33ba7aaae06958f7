package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

func TestExportAuthFailureNamesTheSettingNotTheKey(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 10}, "")
	vars := map[string]string{"BILLSNAP_API_KEY": "not-the-right-key-9c1e", "BILLSNAP_BASE_URL": srv.BaseURL(), "BILLSNAP_FRONT_URL": srv.FrontURL()}
	var out, errb bytes.Buffer
	code := e2etest.RunWith(context.Background(), []string{"export", "--out", t.TempDir(), "--progress", "none"}, &out, &errb, func(k string) string { return vars[k] })
	if code != job.ExitFailure || !strings.Contains(errb.String(), "Authentication Failure") || !strings.Contains(errb.String(), "the service refused the API key from BILLSNAP_API_KEY: check the key there") {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	if strings.Contains(out.String()+errb.String(), "not-the-right-key-9c1e") || strings.Contains(out.String()+errb.String(), "bm90LXRoZS1yaWdodC1rZXktOWMxZQ") {
		t.Error("the key appears in the output")
	}
	if n := srv.Requests(); n > 12 {
		t.Errorf("%d requests after an authentication failure, want one per collection at most", n)
	}
}

func TestConfigProblemsAreUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yml")
	os.WriteFile(bad, []byte("base_url: https://b.example.com\nfront_url: https://f.example.com\nconcurency: 3\n"), 0o644)
	sched := filepath.Join(dir, "sched.yml")
	os.WriteFile(sched, []byte("base_url: https://b.example.com\nfront_url: https://f.example.com\nschedules:\n  - {name: nightly, spec: '0 25 * * *', job: run}\n"), 0o644)
	good := filepath.Join(dir, "good.yml")
	os.WriteFile(good, []byte("base_url: https://b.example.com\nfront_url: https://f.example.com\nconcurrency: 3\n"), 0o644)
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte("k-123456\n"), 0o600)
	for _, tc := range []struct {
		args []string
		vars map[string]string
		code int
		want string
	}{
		{[]string{"export"}, nil, job.ExitUsage, "config key base_url: is required: set it in the config file, with --base-url, or with BILLSNAP_BASE_URL"},
		{[]string{"export", "--config", bad}, nil, job.ExitUsage, `line 3: unknown key "concurency"`},
		{[]string{"check-config", "--config", sched}, nil, job.ExitUsage, `config key schedules[nightly].spec: "0 25 * * *" is not a cron spec`},
		{[]string{"export", "--config", good}, nil, job.ExitUsage, "no API key: set BILLSNAP_API_KEY or use --api-key-file"},
		{[]string{"check-config", "--config", good, "--base-url", "http://10.1.2.3"}, map[string]string{"BILLSNAP_API_KEY": "k"}, job.ExitUsage, "config key base_url: is plain http to 10.1.2.3"},
		{[]string{"check-config", "--config", good, "--concurrency", "0"}, map[string]string{"BILLSNAP_API_KEY": "k"}, job.ExitUsage, "config key concurrency: must be from 1 to 256, not 0"},
		{[]string{"check-config", "--offline", "--config", good, "--api-key-file", keyFile}, nil, job.ExitOK, "configuration OK"},
		{[]string{"check-config", "--offline", "--config", good}, map[string]string{"BILLSNAP_API_KEY": "k-123456", "BILLSNAP_FRONT_URL": "https://env.example.com"}, job.ExitOK, "front_url: https://env.example.com"},
		{[]string{"check-config", "--offline", "--config", good, "--front-url", "https://flag.example.com"}, map[string]string{"BILLSNAP_API_KEY": "k-123456", "BILLSNAP_FRONT_URL": "https://env.example.com"}, job.ExitOK, "front_url: https://flag.example.com"},
	} {
		var out, errb bytes.Buffer
		code := e2etest.RunWith(context.Background(), tc.args, &out, &errb, func(k string) string { return tc.vars[k] })
		if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.want) {
			t.Errorf("%v: exit %d (want %d)\n%s%s\nwant %q", tc.args, code, tc.code, out.String(), errb.String(), tc.want)
		}
		if strings.Contains(out.String()+errb.String(), "k-123456") {
			t.Errorf("%v: the key appears in the output", tc.args)
		}
	}
}

// A command that only reads a store creates none: a mistyped --out (or
// BILLSNAP_OUT) is a usage error naming it, and leaves nothing behind, not
// even a record of the run.
func TestReadCommandsCreateNoStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	typo := filepath.Join(dir, "typo")
	for _, tc := range []struct {
		args []string
		vars map[string]string
		want string
	}{
		{[]string{"status", "--out", typo}, nil, "--out " + typo + " holds no billsnap store"},
		{[]string{"reconcile", "--out", typo}, nil, "--out " + typo + " holds no billsnap store"},
		{[]string{"report", "--out", typo}, nil, "--out " + typo + " holds no billsnap store"},
		{[]string{"reconcile", "--out", empty}, nil, "--out " + empty + " holds no billsnap store"},
		{[]string{"report"}, map[string]string{"BILLSNAP_OUT": empty}, "env BILLSNAP_OUT) " + empty + " holds no billsnap store"},
	} {
		var out, errb bytes.Buffer
		code := e2etest.RunWith(context.Background(), tc.args, &out, &errb, func(k string) string { return tc.vars[k] })
		if code != job.ExitUsage || out.Len() != 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d (want %d)\nstdout %q\nstderr %q\nwant %q", tc.args, code, job.ExitUsage, out.String(), errb.String(), tc.want)
		}
	}
	if _, err := os.Stat(typo); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was created: %v", typo, err)
	}
	if left, _ := os.ReadDir(empty); len(left) != 0 {
		t.Errorf("%s holds %v", empty, left)
	}
}
