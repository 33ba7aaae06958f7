package e2etest

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
	"github.com/billsnap/billsnap/internal/syncbuf"
)

// module is the import path of billsnap's packages.
const module = "github.com/billsnap/billsnap/"

var (
	binaryMu    sync.Mutex
	binaryPaths = map[string]string{} // by build tags
)

// Binary is billsnap for tests that drive the program as a child process:
// the test binary itself, which runs billsnap's main as a child (Main).
func Binary(t *testing.T) string {
	t.Helper()
	path, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// ManyProcesses skips a test with -short: a test that runs many billsnap
// processes against one store. .ci/run's race step passes -short: there
// each child is the race-built test binary, several times slower, and the
// code the children run is raced in-process by the tests that call run.
func ManyProcesses(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: many billsnap processes; the fast tier runs it")
	}
}

// BinaryWithTags builds billsnap with the build tags tags, once per run:
// for the crash points (internal/crashpoint), which the test binary does
// not have.
func BinaryWithTags(t *testing.T, tags string) string {
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
	if out, err := exec.Command("go", "build", "-tags", tags, "-o", path, module+"cmd/billsnap").CombinedOutput(); err != nil {
		t.Fatalf("building billsnap (tags %q): %v: %s", tags, err, out)
	}
	binaryPaths[tags] = path
	return path
}

// LakeBinaryBeside builds billsnap-lake with the build tags tags (and
// lake, which every file of the lake carries) beside
// bin, a billsnap BinaryWithTags built with the same, once per run: the
// program an export runs when parquet.url is set.
func LakeBinaryBeside(t *testing.T, bin, tags string) {
	t.Helper()
	binaryMu.Lock()
	defer binaryMu.Unlock()
	path := filepath.Join(filepath.Dir(bin), lakeprogram.Name)
	if _, err := os.Stat(path); err == nil {
		return
	}
	if out, err := exec.Command("go", "build", "-tags", tags+",lake", "-o", path, module+"cmd/"+lakeprogram.Name).CombinedOutput(); err != nil {
		t.Fatalf("building %s (tags %q): %v: %s", lakeprogram.Name, tags, err, out)
	}
}

// removeBinaries deletes what BinaryWithTags built: each is the size of
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

// Lines collects a child's output line by line and lets a test wait for a
// line that contains a text.
type Lines struct {
	mu   sync.Mutex
	all  []string
	more chan struct{}
}

func Collect(r io.Reader) *Lines {
	l := &Lines{more: make(chan struct{}, 1)}
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
func (l *Lines) count(text string) int {
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

// WaitFor waits until n lines contain text, or fails the test at deadline.
func (l *Lines) WaitFor(t *testing.T, text string, n int, deadline time.Duration) {
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

func (l *Lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

// Stop sends SIGTERM and returns the exit code.
func Stop(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// WaitUntil polls cond until it holds, or fails the test at deadline.
func WaitUntil(t *testing.T, deadline time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("condition not met within %s", deadline)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ReadURL reads serve's log until the line that gives its URL, and copies
// the rest into logs.
func ReadURL(t *testing.T, r io.Reader, logs *syncbuf.Buffer) string {
	t.Helper()
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		logs.Write([]byte(line))
		if m := upRE.FindStringSubmatch(line); m != nil {
			go io.Copy(logs, br)
			return m[1]
		}
		if err != nil {
			t.Fatalf("serve never said where it listens:\n%s", logs.String())
		}
	}
}

var upRE = regexp.MustCompile(`url=(http://\S+/)`)
