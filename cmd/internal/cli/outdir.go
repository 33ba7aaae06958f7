package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/usage"
)

// checkOut is a usage error, one line naming the directory and where it
// came from, when out cannot be the store's directory: a file, a folder
// whose parent is missing or not a folder, or one billsnap may not enter
// (or, with write, write in). It runs before any work. A directory not
// there yet passes when its parent is usable: a writer makes it, and a
// reader says it holds no store (requireStore).
func (f *storeFlags) checkOut(out string, write bool) error {
	err := usableOut(out, write)
	if err == nil {
		return nil
	}
	from := "the configuration's out (or env " + config.EnvOut + ")"
	if given(f.fs, "out") {
		from = "--out"
	}
	return usage.Errorf("%s %s %v", from, out, err)
}

// usableOut says what makes out unusable as the store's directory, or nil.
func usableOut(out string, write bool) error {
	fi, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usableParent(filepath.Dir(filepath.Clean(out)), write)
	case errors.Is(err, fs.ErrPermission):
		return errors.New("cannot be reached: permission denied on a folder above it")
	case err != nil:
		return err
	case !fi.IsDir():
		return errors.New("is a file, not a directory (it names the store's directory)")
	}
	return mayUse(out, write, "")
}

// usableParent is what keeps a missing store directory from being made in
// parent.
func usableParent(parent string, write bool) error {
	fi, err := os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("is not there, nor is its parent " + parent)
	case err != nil:
		return errors.New("is not there, and its parent " + parent + " cannot be read: " + err.Error())
	case !fi.IsDir():
		return errors.New("is not there, and its parent " + parent + " is a file")
	}
	if !write {
		return nil
	}
	return mayUse(parent, true, "its parent "+parent+" ")
}

// mayUse says what billsnap may not do in dir, or nil: as access(2)
// answers for billsnap's user (to root a folder's mode is no bar; a
// read-only file system is, named as such).
func mayUse(dir string, write bool, what string) error {
	mode, need := uint32(5), "read"
	if write {
		mode, need = 7, "read and write"
	}
	if err := syscall.Access(dir, mode); err != nil {
		return errors.New(what + "is not a directory billsnap may " + need + " in (" + err.Error() + ")")
	}
	return nil
}
