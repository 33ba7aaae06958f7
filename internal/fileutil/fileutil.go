// Package fileutil makes files and renames durable: copies, fsyncs of
// files and of the directories that hold renames, several at once. It
// knows nothing of DuckDB, so that the packages that only move files
// (snapshot/tree) stand below the state's engine (snapshot/state), and
// their tests link no DuckDB.
package fileutil

import (
	"io"
	"os"

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
