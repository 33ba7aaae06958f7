// Package atomicfile replaces a file whole: a reader sees the old bytes or
// the new ones, and the new ones are durable once Write returns.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes b to a file beside path, syncs it, renames it over path
// and syncs the directory.
func Write(path string, b []byte) error {
	tmp := path + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	if err == nil {
		err = w.Sync()
	}
	if err = errors.Join(err, w.Close()); err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
