//go:build lake

package iceberg

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/lake"
)

// Holds is the billsnap snapshot the table name's current snapshot holds;
// "" when it has none, or there is no such table.
func (c *Catalog) Holds(ctx context.Context, name string) (string, error) {
	tbl, err := c.load(c.io(ctx), append(slices.Clone(c.ns), name))
	if errors.Is(err, catalog.ErrNoSuchTable) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return Held(tbl.CurrentSnapshot()), nil
}

// CommitHistory commits snapshot id to the history table name (package
// lake's Catalog): one Iceberg snapshot that adds files and drops the
// current versions' file of the one before, so that the table is every
// version of every record, closed and current, as one relation. The
// versions closed stay in every later snapshot: expiring the earlier
// ones drops only the current versions' files they alone list.
func (c *Catalog) CommitHistory(ctx context.Context, name, id string, files []string, schemaOf string) error {
	ctx = c.io(ctx)
	ident := append(slices.Clone(c.ns), name)
	tbl, held, err := c.loadUnlessHeld(ctx, ident, id)
	if held || err != nil {
		return err
	}
	want, withIDs, err := fileSchema(schemaOf)
	if err == nil && !withIDs {
		err = fmt.Errorf("%s has no field IDs", schemaOf)
	}
	if err == nil && tbl == nil {
		tbl, err = c.create(ctx, ident, want, true)
	}
	if err == nil {
		tbl, err = c.setSchema(ctx, tbl, want)
	}
	if err == nil {
		err = c.appendHistory(ctx, tbl, id, files)
	}
	if err != nil {
		return fmt.Errorf("iceberg: committing %s of snapshot %s: %w", name, id, err)
	}
	return nil
}

// appendHistory commits files to tbl, holding id, in place of the
// current versions' file of its current snapshot.
func (c *Catalog) appendHistory(ctx context.Context, tbl *table.Table, id string, files []string) error {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return err
	}
	live, err := liveDataFiles(tbl.CurrentSnapshot(), fs)
	if err != nil {
		return err
	}
	var old []ice.DataFile
	for _, f := range live {
		if strings.HasPrefix(path.Base(f.FilePath()), lake.CurrentPrefix) {
			old = append(old, f)
		}
	}
	add := make([]ice.DataFile, len(files))
	for i, f := range files {
		if add[i], err = table.FileToDataFile(ctx, fs, f, tbl.Schema(), tbl.Spec(), 0, tbl.Properties()); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	tx := tbl.NewTransaction()
	if err := tx.ReplaceDataFilesWithDataFiles(ctx, old, add, ice.Properties{SnapshotKey: id}, table.WithoutAutoNameMapping()); err != nil {
		return err
	}
	next, err := tx.Commit(ctx)
	c.tables.put(tableName(tbl), next)
	if err == nil {
		crashpoint.Hit("iceberg.history")
	}
	return err
}
