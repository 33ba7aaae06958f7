package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config file that group or others can write is refused, as sshd
// refuses such keys: the error names the file and its mode. One that
// others can only read is loaded.
func TestWritableConfigIsRefused(t *testing.T) {
	for _, mode := range []os.FileMode{0o666, 0o664, 0o646, 0o620, 0o602} {
		path := filepath.Join(t.TempDir(), "billsnap.yml")
		if err := os.WriteFile(path, []byte("concurrency: 4\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, env(nil))
		want := fmt.Sprintf("config file %s: mode %04o lets", path, mode)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("mode %04o: error %v, want one line containing %q", mode, err, want)
		}
	}
	for _, mode := range []os.FileMode{0o600, 0o640, 0o644, 0o444, 0o755} {
		path := filepath.Join(t.TempDir(), "billsnap.yml")
		if err := os.WriteFile(path, []byte("concurrency: 4\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if c, err := Load(path, env(nil)); err != nil || c.Concurrency != 4 {
			t.Errorf("mode %04o: %v, concurrency %d", mode, err, c.Concurrency)
		}
	}
}

// A config file over 1 MiB is refused before it is parsed, naming its
// size; one of exactly 1 MiB is read.
func TestAConfigOverAMegabyteIsRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(size int) string {
		line := "# " + strings.Repeat("x", 97) + "\n" // 100 bytes
		body := "concurrency: 4\n" + strings.Repeat(line, size/100)
		body += strings.Repeat("#", size-len(body)-1) + "\n"
		path := filepath.Join(dir, fmt.Sprintf("c%d.yml", size))
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	big := write(MaxFileSize + 1)
	_, err := Load(big, env(nil))
	want := fmt.Sprintf("config file %s: %d bytes, more than a configuration's %d (1 MiB): refused before it is read", big, MaxFileSize+1, MaxFileSize)
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if c, err := Load(write(MaxFileSize), env(nil)); err != nil || c.Concurrency != 4 {
		t.Errorf("a file of 1 MiB: %v, concurrency %d", err, c.Concurrency)
	}
}
