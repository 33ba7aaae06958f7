package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
)

var (
	binaryMu    sync.Mutex
	binaryPaths = map[string]string{} // by build tags
)

// binary is billsnap for tests that drive the program as a child process:
// the test binary itself, which runs billsnap's main as a child (TestMain).
func binary(t *testing.T) string {
	t.Helper()
	path, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// manyProcesses skips a test with -short: a test that runs many billsnap
// processes against one store. .ci/run's race step passes -short: there
// each child is the race-built test binary, several times slower, and the
// code the children run is raced in-process by the tests that call run.
func manyProcesses(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: many billsnap processes; the fast tier runs it")
	}
}

// binaryWithTags builds billsnap with the build tags tags, once per run:
// for the crash points (internal/crashpoint), which the test binary does
// not have.
func binaryWithTags(t *testing.T, tags string) string {
	t.Helper()
	binaryMu.Lock()
	defer binaryMu.Unlock()
	if p := binaryPaths[tags]; p != "" {
		return p
	}
	dir, err := os.MkdirTemp("", "billsnap-bin-")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "billsnap")
	if out, err := exec.Command("go", "build", "-tags", tags, "-o", path, ".").CombinedOutput(); err != nil {
		t.Fatalf("building billsnap (tags %q): %v: %s", tags, err, out)
	}
	binaryPaths[tags] = path
	return path
}

// lakeBinaryBeside builds billsnap-lake with the build tags tags (and
// lake, which every file of the lake carries) beside
// bin, a billsnap binaryWithTags built with the same, once per run: the
// program an export runs when parquet.url is set.
func lakeBinaryBeside(t *testing.T, bin, tags string) {
	t.Helper()
	binaryMu.Lock()
	defer binaryMu.Unlock()
	path := filepath.Join(filepath.Dir(bin), lakeprogram.Name)
	if _, err := os.Stat(path); err == nil {
		return
	}
	if out, err := exec.Command("go", "build", "-tags", tags+",lake", "-o", path, "../"+lakeprogram.Name).CombinedOutput(); err != nil {
		t.Fatalf("building %s (tags %q): %v: %s", lakeprogram.Name, tags, err, out)
	}
}

// removeBinaries deletes what binaryWithTags built: each is the size of
// billsnap, and a heavy run that left them would fill the temporary
// directory run by run.
func removeBinaries() {
	binaryMu.Lock()
	defer binaryMu.Unlock()
	for tags, path := range binaryPaths {
		os.RemoveAll(filepath.Dir(path))
		delete(binaryPaths, tags)
	}
}

// lines collects a child's output line by line and lets a test wait for a
// line that contains a text.
type lines struct {
	mu   sync.Mutex
	all  []string
	more chan struct{}
}

func collect(r io.Reader) *lines {
	l := &lines{more: make(chan struct{}, 1)}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l.mu.Lock()
			l.all = append(l.all, sc.Text())
			l.mu.Unlock()
			select {
			case l.more <- struct{}{}:
			default:
			}
		}
	}()
	return l
}

// count is how many lines so far contain text.
func (l *lines) count(text string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.all {
		if strings.Contains(s, text) {
			n++
		}
	}
	return n
}

// waitFor waits until n lines contain text, or fails the test at deadline.
func (l *lines) waitFor(t *testing.T, text string, n int, deadline time.Duration) {
	t.Helper()
	timeout := time.After(deadline)
	for l.count(text) < n {
		select {
		case <-l.more:
		case <-timeout:
			t.Fatalf("waited %s for %d lines with %q; output:\n%s", deadline, n, text, l.String())
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}
