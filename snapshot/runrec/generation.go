package runrec

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/billsnap/billsnap/internal/fileutil"
)

// Link is the records' link, DIR/records, through which readers see the
// current generation.
func (s Records) Link() string { return s.gens.Link }

// Build writes the next generation of the records from db, the state in
// a section, and the journal (Write), and returns it: Show shows it once
// the state commits, Drop removes it if the state does not. On error
// nothing of it is left.
func (s Records) Build(ctx context.Context, db *sql.DB) (string, error) {
	cur, err := s.gens.Current()
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(filepath.Base(cur))
	if err != nil {
		return "", fmt.Errorf("records: %s is not a generation", cur)
	}
	next := s.gens.Gen(n + 1)
	os.RemoveAll(next)
	if err := os.MkdirAll(next, 0o755); err != nil {
		return "", fmt.Errorf("records: %w", err)
	}
	if err := s.Write(ctx, db, cur, next); err != nil {
		Drop(next)
		return "", fmt.Errorf("records: %w", err)
	}
	fileutil.SyncDir(next)
	return next, nil
}

// Show points the records' link at generation next, which Build made,
// and removes the others.
func (s Records) Show(next string) error {
	if err := s.gens.Point(next); err != nil {
		return err
	}
	s.gens.RemoveOthers(next)
	return nil
}

// Drop removes generation next, built and not shown ("" for none).
func Drop(next string) {
	if next != "" {
		os.RemoveAll(next)
	}
}
