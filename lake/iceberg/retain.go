//go:build lake

package iceberg

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/iceberg-go/table"
	"golang.org/x/sync/errgroup"

	"github.com/billsnap/billsnap/lake"
)

// Expire removes from every table the Iceberg snapshots of billsnap
// snapshots keep does not name (and the files only they use), keeping the
// newest ones; a table whose kept snapshots all have files with field IDs
// then loses the name mapping that files without them needed.
func (c *Catalog) Expire(ctx context.Context, keep []string) error {
	ctx = c.io(ctx)
	tables, err := c.Tables(ctx)
	if err != nil {
		return err
	}
	for _, tbl := range tables {
		if err := c.expireTable(ctx, tbl, keep); err != nil {
			return fmt.Errorf("iceberg: expiring the snapshots of %s: %w", strings.Join(tbl.Identifier(), "."), err)
		}
	}
	return nil
}

// expireTable is Expire of one table, in one commit (none when nothing
// changes). A table none of whose snapshots keep names (its list left out
// by the collections key) keeps them all.
func (c *Catalog) expireTable(ctx context.Context, tbl *table.Table, keep []string) error {
	snaps := tbl.Metadata().Snapshots()
	var kept []string
	for _, s := range snaps {
		if slices.Contains(keep, Held(&s)) {
			kept = append(kept, Held(&s))
		}
	}
	if len(kept) == 0 {
		for _, s := range snaps {
			kept = append(kept, Held(&s))
		}
	}
	tx := tbl.NewTransaction()
	changed := false
	if len(kept) < len(snaps) {
		if err := tx.ExpireSnapshots(table.WithRetainLast(len(kept)), table.WithOlderThan(0)); err != nil {
			return err
		}
		changed = true
	}
	if since := tbl.Properties()[idsSinceKey]; since != "" && len(kept) > 0 && slices.Min(kept) >= since {
		if err := tx.RemoveProperties([]string{table.DefaultNameMappingKey, idsSinceKey}); err != nil {
			return err
		}
		changed = true
	}
	if !changed {
		return nil
	}
	next, err := tx.Commit(ctx)
	if err == nil {
		c.tables.put(tableName(tbl), next)
	}
	return err
}

// Referenced is what the tables reference, as URLs: each one's metadata
// file and the earlier ones its metadata log keeps, and of every snapshot
// it keeps the manifest list, the manifests and the data files; and the
// directories their metadata is written to. The tables' manifests are
// read a few tables at a time.
func (c *Catalog) Referenced(ctx context.Context) (lake.Refs, error) {
	ctx = c.io(ctx)
	refs := lake.Refs{Files: map[string]bool{}}
	tables, err := c.Tables(ctx)
	if err != nil {
		return refs, err
	}
	each := make([]map[string]bool, len(tables))
	var g errgroup.Group
	g.SetLimit(commits)
	for i, tbl := range tables {
		each[i] = map[string]bool{}
		g.Go(func() error {
			if err := referencedBy(ctx, tbl, each[i]); err != nil {
				return fmt.Errorf("iceberg: the files of %s: %w", strings.Join(tbl.Identifier(), "."), err)
			}
			return nil
		})
		loc := tbl.MetadataLocation()
		refs.MetadataDirs = append(refs.MetadataDirs, loc[:strings.LastIndex(loc, "/")])
	}
	if err := g.Wait(); err != nil {
		return refs, err
	}
	for _, files := range each {
		maps.Copy(refs.Files, files)
	}
	return refs, nil
}

// referencedBy adds to files what tbl references.
func referencedBy(ctx context.Context, tbl *table.Table, files map[string]bool) error {
	files[tbl.MetadataLocation()] = true
	for e := range tbl.Metadata().PreviousFiles() {
		files[e.MetadataFile] = true
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return err
	}
	for _, s := range tbl.Metadata().Snapshots() {
		files[s.ManifestList] = true
		manifests, err := s.Manifests(fs)
		if err != nil {
			return err
		}
		for _, m := range manifests {
			files[m.FilePath()] = true
		}
		data, err := dataFilesOf(manifests, fs)
		if err != nil {
			return err
		}
		for _, d := range data {
			files[d.FilePath()] = true
		}
	}
	return nil
}
