package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

func TestExportAuthFailureNamesTheSettingNotTheKey(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 1, Customers: 10}, "")
	vars := map[string]string{"BILLSNAP_API_KEY": "not-the-right-key-9c1e", "BILLSNAP_BASE_URL": srv.BaseURL(), "BILLSNAP_FRONT_URL": srv.FrontURL()}
	var out, errb bytes.Buffer
	code := runWith(context.Background(), []string{"export", "--out", t.TempDir(), "--progress", "none"}, &out, &errb, func(k string) string { return vars[k] })
	if code != job.ExitFailure || !strings.Contains(errb.String(), "Authentication Failure") || !strings.Contains(errb.String(), "check BILLSNAP_API_KEY or --api-key-file") {
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
		{[]string{"check-config", "--config", good, "--api-key-file", keyFile}, nil, job.ExitOK, "configuration OK"},
		{[]string{"check-config", "--config", good}, map[string]string{"BILLSNAP_API_KEY": "k-123456", "BILLSNAP_FRONT_URL": "https://env.example.com"}, job.ExitOK, "front_url: https://env.example.com"},
		{[]string{"check-config", "--config", good, "--front-url", "https://flag.example.com"}, map[string]string{"BILLSNAP_API_KEY": "k-123456", "BILLSNAP_FRONT_URL": "https://env.example.com"}, job.ExitOK, "front_url: https://flag.example.com"},
	} {
		var out, errb bytes.Buffer
		code := runWith(context.Background(), tc.args, &out, &errb, func(k string) string { return tc.vars[k] })
		if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.want) {
			t.Errorf("%v: exit %d (want %d)\n%s%s\nwant %q", tc.args, code, tc.code, out.String(), errb.String(), tc.want)
		}
		if strings.Contains(out.String()+errb.String(), "k-123456") {
			t.Errorf("%v: the key appears in the output", tc.args)
		}
	}
}

// Without a terminal, progress is a log line every few seconds.
func TestProgressLogLines(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var errb bytes.Buffer
		env := newEnv(&bytes.Buffer{}, &errb, noEnv)
		p := newProgress("auto", env, 5*time.Second, 2)
		p.Walking("customers", 1, 300)
		p.PageDone("customers", 100)
		time.Sleep(6 * time.Second)
		p.Walking("units", 1, 5)
		p.PageDone("units", 5)
		p.PageDone("customers", 200)
		time.Sleep(5 * time.Second)
		p.Done(true)
		for _, want := range []string{
			"msg=progress records=100 of=300 collections=1 phase=walking\n",
			`msg=progress records=305 of=305 collections=2 phase="loading and publishing"` + "\n",
		} {
			if !strings.Contains(errb.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, errb.String())
			}
		}
	})
}

// When no page has come for 30 s, progress says once, at WARN, what the
// export waits on; a page ends the stall, and the next one is said again.
func TestProgressSaysWhatAStallWaitsOn(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var errb syncbuf.Buffer // the ticker's goroutine writes it while the test reads
		env := newEnv(&bytes.Buffer{}, &errb, noEnv)
		p := newProgress("log", env, 5*time.Second, 3)
		p.Walking("customers", 1, 300)
		p.PageDone("customers", 100)
		time.Sleep(29 * time.Second)
		if strings.Contains(errb.String(), "no page") {
			t.Fatalf("a stall said after 29 s: %s", errb.String())
		}
		time.Sleep(40 * time.Second)
		want := `level=WARN msg="no page for 30s: waiting on the next page of customers, and the first page of 2 of 3 collections"` + "\n"
		if got := errb.String(); strings.Count(got, "no page") != 1 || !strings.Contains(got, want) {
			t.Errorf("stderr %q, want once %q", got, want)
		}
		p.PageDone("customers", 100)
		time.Sleep(35 * time.Second)
		p.Done(true)
		if got := errb.String(); strings.Count(got, "no page") != 2 {
			t.Errorf("after a page and another stall, %d stall lines:\n%s", strings.Count(got, "no page"), got)
		}
	})
}

// On a terminal the bar ends only when the export does: a collection
// that has taken all it announced does not end it.
// (Not in a synctest bubble: the bar's spinner ticks on a goroutine of its
// own until the next tick after it ends.)
func TestTheBarEndsOnlyWithTheExport(t *testing.T) {
	t.Parallel()
	env := newEnv(&bytes.Buffer{}, &bytes.Buffer{}, noEnv)
	p := newProgress("bar", env, 5*time.Second, 2)
	p.Walking("units", 1, 5)
	p.PageDone("units", 5)
	if p.bar.IsFinished() {
		t.Error("the bar ended when the first collection did")
	}
	p.Walking("customers", 1, 300)
	p.PageDone("customers", 300)
	if p.bar.IsFinished() {
		t.Error("the bar ended before loading and publishing")
	}
	p.Done(true)
	if !p.bar.IsFinished() {
		t.Error("the bar did not end with the export")
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
		code := runWith(context.Background(), tc.args, &out, &errb, func(k string) string { return tc.vars[k] })
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
