package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// binary builds billsnap once per test run, for tests that drive the real
// program as a child process.
func binary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "billsnap-bin-")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "billsnap")
		out, err := exec.Command("go", "build", "-o", binaryPath, ".").CombinedOutput()
		if err != nil {
			binaryErr = fmt.Errorf("%w: %s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatalf("building billsnap: %v", binaryErr)
	}
	return binaryPath
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
