//go:build heavy

package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/internal/testtools"
	"github.com/billsnap/billsnap/job"
)

// The demo's HTML report, opened in a real headless Chromium, loads with no
// console error, no exception and no request to the network, and a
// screenshot is taken (kept when BILLSNAP_SCREENSHOT_DIR names a folder).
func TestHTMLReportInChromium(t *testing.T) {
	t.Parallel()
	browser := testtools.Require(t, "chromium", "chromium", "chromium-browser", "google-chrome")
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := e2etest.RunWith(context.Background(), []string{"demo", "--out", dir, "--progress", "none"}, &out, &errb, e2etest.NoEnv); code != job.ExitOK {
		t.Fatalf("demo: exit %d %s", code, errb.String())
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "reports", "*", "report.html"))
	if len(pages) != 1 {
		t.Fatalf("report pages %v", pages)
	}
	shot, problems := openInChromium(t, browser, pages[0])
	for _, p := range problems {
		t.Error(p)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil || img.Bounds().Dx() < 1000 || img.Bounds().Dy() < 1000 {
		t.Fatalf("screenshot: %v, %v", err, img.Bounds())
	}
	keep := filepath.Join(t.TempDir(), "report.png")
	if d := os.Getenv("BILLSNAP_SCREENSHOT_DIR"); d != "" {
		os.MkdirAll(d, 0o755)
		keep = filepath.Join(d, "report.png")
	}
	if err := os.WriteFile(keep, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %dx%d: %s", img.Bounds().Dx(), img.Bounds().Dy(), keep)
}

// openInChromium loads page and returns a full-page PNG and everything that
// went wrong: console errors and warnings, exceptions, error log entries,
// requests that are not for the file itself.
func openInChromium(t *testing.T, browser, page string) ([]byte, []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000), chromedp.Flag("disable-quic", true))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(alloc)
	defer cancelCtx()
	var mu sync.Mutex
	var problems []string
	note := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	url := "file://" + page
	listen := func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, strings.Trim(string(a.Value), `"`)+a.Description)
				}
				note("console %s: %s", e.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			note("exception: %s", e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				note("log error: %s %s", e.Entry.Text, e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != url && !strings.HasPrefix(e.Request.URL, "data:") {
				note("network request to %s", e.Request.URL)
			}
		}
	}
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return shot, problems
}
