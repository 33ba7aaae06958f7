package e2etest

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

// ExportedOptions is the sandbox of the tests that need a store holding
// one complete snapshot and nothing else (Exported): any such store
// serves, so they share one export.
var ExportedOptions = sandbox.Options{Seed: 79, Customers: 30, Planted: 3}

// CleanOptions is the sandbox of the tests that need a store holding one
// complete snapshot of data no rule flags before their own jobs run on it
// (Exported): they share one export, as ExportedOptions' tests do.
var CleanOptions = sandbox.Options{Seed: 81, Customers: 30}

// exports are the stores exported once per test binary, by sandbox
// options, that Exported copies; removeExports deletes them.
var exports = struct {
	sync.Mutex
	Dir    string
	stores map[sandbox.Options]*export
}{stores: map[sandbox.Options]*export{}}

// export is a store exported once: the sandbox's options with its clock
// set (the same options give the same records), the directory, and why it
// could not be made; and, made once too when a test asks (Reconciled), a
// copy of it holding one reconciliation.
type export struct {
	once       sync.Once
	o          sandbox.Options
	Dir        string
	Err        error
	reconciled made
}

// made is a store made once from an export, and why it could not be.
type made struct {
	once sync.Once
	Dir  string
	Err  error
}

// Exported starts a sandbox of o and gives a new store in which it is
// exported: a copy of the store exported once per test binary from a
// sandbox equal to the one it starts (its clock the same), so that a test
// may change both. The copy's read model is published again at its own
// path (its views name the directory), as after a move.
func Exported(t *testing.T, o sandbox.Options) (*sandbox.Server, string) {
	t.Helper()
	e := ExportOnce(t, o)
	return copied(t, e.o, e.Dir, e.Err)
}

// Reconciled is Exported's store after billsnap reconcile of its snapshot:
// a copy of one store made so once per test binary, for the tests to which
// any reconciliation of the export serves.
func Reconciled(t *testing.T, o sandbox.Options) (*sandbox.Server, string) {
	t.Helper()
	e := ExportOnce(t, o)
	r := &e.reconciled
	r.once.Do(func() {
		if r.Err = e.Err; r.Err != nil {
			return
		}
		if r.Dir, r.Err = os.MkdirTemp(filepath.Dir(e.Dir), "reconciled-"); r.Err == nil {
			r.Err = reconcileCopy(t, e, r.Dir)
		}
	})
	return copied(t, e.o, r.Dir, r.Err)
}

// reconcileCopy copies e's store into dir and reconciles it there.
func reconcileCopy(t *testing.T, e *export, dir string) error {
	if err := CopyStore(e.Dir, dir); err != nil {
		return err
	}
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{Data: e.o, APIKey: sandboxtest.Key}))
	if err != nil {
		return err
	}
	defer srv.Close()
	if code, _, stderr := CLI(t, srv, "reconcile", "--out", dir); code != job.ExitOK && code != job.ExitMaterial {
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
	if err := CopyStore(from, dir); err != nil {
		t.Fatal(err)
	}
	return srv, dir
}

// CopyStore copies the store src into dst, which exists, and publishes
// the copy's read model again at dst (its views name the directory).
func CopyStore(src, dst string) error {
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

// ExportOnce is the export of o, made by the first caller.
func ExportOnce(t *testing.T, o sandbox.Options) *export {
	exports.Lock()
	e := exports.stores[o]
	if e == nil {
		e = &export{o: o}
		if e.o.Now.IsZero() {
			e.o.Now = time.Now()
		}
		exports.stores[o] = e
	}
	if exports.Dir == "" {
		exports.Dir, e.Err = os.MkdirTemp("", "billsnap-exports-")
	}
	root := exports.Dir
	exports.Unlock()
	e.once.Do(func() {
		if e.Err == nil {
			e.Dir, e.Err = os.MkdirTemp(root, "store-")
		}
		if e.Err == nil {
			e.Err = exportInto(t, e.o, e.Dir)
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
	if code, _, stderr := CLI(t, srv, "export", "--out", dir, "--progress", "none"); code != job.ExitOK {
		return fmt.Errorf("export: exit %d: %s", code, stderr)
	}
	return nil
}

// removeExports deletes the stores exportOnce made.
func removeExports() {
	exports.Lock()
	defer exports.Unlock()
	if exports.Dir != "" {
		os.RemoveAll(exports.Dir)
	}
	exports.Dir, exports.stores = "", map[sandbox.Options]*export{}
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
