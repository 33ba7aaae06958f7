package state

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// CopyFile copies src to dst, and makes dst durable when durable is set.
func CopyFile(src, dst string, durable bool) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if durable {
		if err := out.Sync(); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}

// SyncFile makes a file durable.
func SyncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// SyncDir makes a rename in dir durable; failures only cost durability.
func SyncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}

// SyncFiles makes the files durable, several at once.
func SyncFiles(paths []string) error {
	var g errgroup.Group
	g.SetLimit(syncers)
	for _, p := range paths {
		g.Go(func() error { return SyncFile(p) })
	}
	return g.Wait()
}

// SyncDirs syncs the directories, several at once: the file system's
// journal then commits several in one write, where one after the other
// each waits for its own.
func SyncDirs(dirs []string) {
	var g errgroup.Group
	g.SetLimit(syncers)
	for _, d := range dirs {
		g.Go(func() error { SyncDir(d); return nil })
	}
	g.Wait()
}

// syncers is how many files or directories are synced at once.
const syncers = 8

// SweepEnded removes what ended processes left in dir: field i of an
// entry's dot-separated name is the process's ID (an entry without one is
// an ended process's). With age above 0, other processes' entries older
// than age go too: their number may have been used again.
func SweepEnded(dir string, i int, age time.Duration) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		pid := pidIn(e.Name(), i)
		stale := age > 0 && pid != os.Getpid() && time.Since(info.ModTime()) > age
		if stale || !ProcessRuns(pid) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// pidIn is the process ID that field i of a name of dot-separated fields
// gives, 0 for none.
func pidIn(name string, i int) int {
	parts := strings.Split(name, ".")
	if len(parts) <= i {
		return 0
	}
	pid, _ := strconv.Atoi(parts[i])
	return pid
}
