package jsonl

import (
	"errors"
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

// A Whole file with a half last line takes no append and no rewrite, and
// keeps the half line; Synced sees the lines each write leaves.
func TestAWholeFileRefusesAHalfLine(t *testing.T) {
	var seen []int
	f := File{Path: filepath.Join(t.TempDir(), "x.jsonl"), Whole: true,
		Synced: func(lines [][]byte) error { seen = append(seen, len(lines)); return nil }}
	add := func([][]byte) ([]byte, error) { return []byte(`"a"`), nil }
	if err := f.Append(add); err != nil {
		t.Fatal(err)
	}
	if err := f.Append(add); err != nil || len(seen) != 2 || seen[1] != 2 {
		t.Fatalf("synced %v, %v", seen, err)
	}
	h, _ := os.OpenFile(f.Path, os.O_APPEND|os.O_WRONLY, 0)
	h.WriteString(`"ha`)
	h.Close()
	var partial *PartialError
	if err := f.Append(add); !errors.As(err, &partial) || partial.Line != 3 || partial.Bytes != 3 {
		t.Fatalf("append after a half line: %v", err)
	}
	if err := f.Rewrite(func(l [][]byte) ([][]byte, error) { return l, nil }); !errors.As(err, &partial) {
		t.Fatalf("rewrite after a half line: %v", err)
	}
	if b, _ := os.ReadFile(f.Path); string(b) != "\"a\"\n\"a\"\n\"ha" || len(seen) != 2 {
		t.Fatalf("the file %q, synced %v", b, seen)
	}
}
