package main

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
	"github.com/billsnap/billsnap/snapshot"
)

// exportedOptions is the sandbox of the tests that need a store holding
// one complete snapshot and nothing else (exported): any such store
// serves, so they share one export.
var exportedOptions = sandbox.Options{Seed: 79, Customers: 30, Planted: 3}

// cleanOptions is the sandbox of the tests that need a store holding one
// complete snapshot of data no rule flags before their own jobs run on it
// (exported): they share one export, as exportedOptions' tests do.
var cleanOptions = sandbox.Options{Seed: 81, Customers: 30}

// exports are the stores exported once per test binary, by sandbox
// options, that exported copies; removeExports deletes them.
var exports = struct {
	sync.Mutex
	dir    string
	stores map[sandbox.Options]*export
}{stores: map[sandbox.Options]*export{}}

// export is a store exported once: the sandbox's options with its clock
// set (the same options give the same records), the directory, and why it
// could not be made; and, made once too when a test asks (reconciled), a
// copy of it holding one reconciliation.
type export struct {
	once       sync.Once
	o          sandbox.Options
	dir        string
	err        error
	reconciled made
}

// made is a store made once from an export, and why it could not be.
type made struct {
	once sync.Once
	dir  string
	err  error
}

// exported starts a sandbox of o and gives a new store in which it is
// exported: a copy of the store exported once per test binary from a
// sandbox equal to the one it starts (its clock the same), so that a test
// may change both. The copy's read model is published again at its own
// path (its views name the directory), as after a move.
func exported(t *testing.T, o sandbox.Options) (*sandbox.Server, string) {
	t.Helper()
	e := exportOnce(t, o)
	return copied(t, e.o, e.dir, e.err)
}

// reconciled is exported's store after billsnap reconcile of its snapshot:
// a copy of one store made so once per test binary, for the tests to which
// any reconciliation of the export serves.
func reconciled(t *testing.T, o sandbox.Options) (*sandbox.Server, string) {
	t.Helper()
	e := exportOnce(t, o)
	r := &e.reconciled
	r.once.Do(func() {
		if r.err = e.err; r.err != nil {
			return
		}
		if r.dir, r.err = os.MkdirTemp(filepath.Dir(e.dir), "reconciled-"); r.err == nil {
			r.err = reconcileCopy(t, e, r.dir)
		}
	})
	return copied(t, e.o, r.dir, r.err)
}

// reconcileCopy copies e's store into dir and reconciles it there.
func reconcileCopy(t *testing.T, e *export, dir string) error {
	if err := copyStore(e.dir, dir); err != nil {
		return err
	}
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{Data: e.o, APIKey: sandboxtest.Key}))
	if err != nil {
		return err
	}
	defer srv.Close()
	if code, _, stderr := cli(t, srv, "reconcile", "--out", dir); code != job.ExitOK && code != job.ExitMaterial {
		return fmt.Errorf("reconcile: exit %d: %s", code, stderr)
	}
	return nil
}

// copied starts a sandbox of o and gives a new copy of the shared store
// at from (copyStore), failing the test with err, why it was not made.
func copied(t *testing.T, o sandbox.Options, from string, err error) (*sandbox.Server, string) {
	t.Helper()
	if err != nil {
		t.Fatalf("the shared store of %+v: %v", o, err)
	}
	srv := sandboxtest.Start(t, o, "")
	dir := t.TempDir()
	if err := copyStore(from, dir); err != nil {
		t.Fatal(err)
	}
	return srv, dir
}

// copyStore copies the store src into dst, which exists, and publishes
// the copy's read model again at dst (its views name the directory).
func copyStore(src, dst string) error {
	if err := copyTree(src, dst); err != nil {
		return err
	}
	cfg := config.Default()
	cfg.Out = dst
	store, err := snapshot.Open(context.Background(), cfg.Options, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		return err
	}
	defer store.Close()
	return store.UpdateAndPublish(context.Background(), func(*snapshot.Section) error { return nil })
}

// exportOnce is the export of o, made by the first caller.
func exportOnce(t *testing.T, o sandbox.Options) *export {
	exports.Lock()
	e := exports.stores[o]
	if e == nil {
		e = &export{o: o}
		if e.o.Now.IsZero() {
			e.o.Now = time.Now()
		}
		exports.stores[o] = e
	}
	if exports.dir == "" {
		exports.dir, e.err = os.MkdirTemp("", "billsnap-exports-")
	}
	root := exports.dir
	exports.Unlock()
	e.once.Do(func() {
		if e.err == nil {
			e.dir, e.err = os.MkdirTemp(root, "store-")
		}
		if e.err == nil {
			e.err = exportInto(t, e.o, e.dir)
		}
	})
	return e
}

// exportInto exports a sandbox of o into dir.
func exportInto(t *testing.T, o sandbox.Options, dir string) error {
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{Data: o, APIKey: sandboxtest.Key}))
	if err != nil {
		return err
	}
	defer srv.Close()
	if code, _, stderr := cli(t, srv, "export", "--out", dir, "--progress", "none"); code != job.ExitOK {
		return fmt.Errorf("export: exit %d: %s", code, stderr)
	}
	return nil
}

// removeExports deletes the stores exportOnce made.
func removeExports() {
	exports.Lock()
	defer exports.Unlock()
	if exports.dir != "" {
		os.RemoveAll(exports.dir)
	}
	exports.dir, exports.stores = "", map[sandbox.Options]*export{}
}

// copyTree copies the directory src into dst, which exists: files with
// their mode and modification time, symbolic links as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, info.Mode().Perm()); err != nil {
			return err
		}
		return os.Chtimes(to, info.ModTime(), info.ModTime())
	})
}
