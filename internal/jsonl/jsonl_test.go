package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An Append that opened the file and waits for its lock while the file is
// rewritten appends to the new file, not to the one replaced.
func TestAnAppendWaitingForARewriteLandsInTheNewFile(t *testing.T) {
	f := File{Path: filepath.Join(t.TempDir(), "x.jsonl")}
	if err := f.Append(func([][]byte) ([]byte, error) { return []byte(`"old"`), nil }); err != nil {
		t.Fatal(err)
	}
	held, _ := os.OpenFile(f.Path, os.O_RDWR, 0)
	syscall.Flock(int(held.Fd()), syscall.LOCK_EX)
	waiting, done := make(chan struct{}), make(chan error)
	opened = func() { opened = func() {}; close(waiting) }
	defer func() { opened = func() {} }()
	go func() { done <- f.Append(func([][]byte) ([]byte, error) { return []byte(`"appended"`), nil }) }()
	<-waiting
	// What Rewrite does while it holds the lock.
	os.WriteFile(f.Path+".rewrite", []byte("\"rewritten\"\n"), 0o644)
	os.Rename(f.Path+".rewrite", f.Path)
	held.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines, _ := f.Lines()
	var got []string
	for _, l := range lines {
		got = append(got, string(l))
	}
	if strings.Join(got, " ") != `"rewritten" "appended"` {
		t.Errorf("the file holds %v", got)
	}
}

// Rewrite replaces the lines whole, and leaves no file beside.
func TestRewrite(t *testing.T) {
	dir := t.TempDir()
	f := File{Path: filepath.Join(dir, "x.jsonl")}
	for _, l := range []string{"1", "2", "3"} {
		f.Append(func([][]byte) ([]byte, error) { return []byte(l), nil })
	}
	err := f.Rewrite(func(lines [][]byte) ([][]byte, error) { return lines[1:], nil })
	lines, _ := f.Lines()
	entries, _ := os.ReadDir(dir)
	if err != nil || len(lines) != 2 || string(lines[0]) != "2" || len(entries) != 1 {
		t.Errorf("after the rewrite: %q, %d files, %v", lines, len(entries), err)
	}
}
