//go:build lake

package iceberg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"golang.org/x/sync/errgroup"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/lake"
)

// idsSinceKey is the property of a table that still holds files without
// field IDs (published before billsnap gave its columns IDs): the first
// billsnap snapshot whose files carry them. Once every snapshot the table
// keeps is that one or later, its name mapping is removed (Expire).
const idsSinceKey = "billsnap.field-ids-since"

// commits is how many tables Commit commits, and Referenced reads, at
// once: each table's work is its own, and waits mostly on the store and
// the catalog.
const commits = 4

// Commit makes m the current snapshot of each table it has files of (every
// table has, empty or not, unless the collections key leaves its list
// out: such a table keeps its current snapshot, whose summary names the
// billsnap snapshot it holds). The tables are committed a few at a time,
// each on its own: one that fails leaves the others committed, and the
// error is the first failed table's, in the order of their names.
func (c *Catalog) Commit(ctx context.Context, m lake.Manifest, local []lake.Local) error {
	ctx = c.io(ctx)
	byTable := map[string][]string{}
	for _, f := range m.Files {
		byTable[f.Table] = append(byTable[f.Table], lake.FileURL(c.root, f.Key))
	}
	for _, l := range local {
		if _, ok := byTable[l.Table]; !ok {
			return fmt.Errorf("iceberg: snapshot %s has local files of %s but none published", m.Snapshot, l.Table)
		}
	}
	names := slices.Sorted(maps.Keys(byTable))
	schemaOf := make([]string, len(names))
	for n, name := range names {
		i := slices.IndexFunc(local, func(l lake.Local) bool { return l.Table == name })
		if i < 0 {
			return fmt.Errorf("iceberg: snapshot %s: no local file of %s to read its schema from", m.Snapshot, name)
		}
		schemaOf[n] = local[i].Path
	}
	errs := make([]error, len(names))
	var g errgroup.Group
	g.SetLimit(commits)
	for n, name := range names {
		g.Go(func() error {
			if err := c.commitTable(ctx, name, m.Snapshot, byTable[name], schemaOf[n]); err != nil {
				errs[n] = fmt.Errorf("iceberg: committing %s of snapshot %s: %w", name, m.Snapshot, err)
			}
			return nil
		})
	}
	g.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// commitTable makes files (snapshot id's files of table name) the
// table's current snapshot, in place of the files of the one before;
// the table is created, or its schema made that of the file at schemaOf,
// first.
func (c *Catalog) commitTable(ctx context.Context, name, id string, files []string, schemaOf string) error {
	ident := append(slices.Clone(c.ns), name)
	tbl, held, err := c.loadUnlessHeld(ctx, ident, id)
	if held || err != nil {
		return err
	}
	want, withIDs, err := fileSchema(schemaOf)
	if err != nil {
		return err
	}
	if tbl == nil {
		if tbl, err = c.create(ctx, ident, want, withIDs); err != nil {
			return err
		}
		crashpoint.Hit("iceberg.created")
	}
	if withIDs {
		tbl, err = c.setSchema(ctx, tbl, want)
	} else {
		tbl, err = c.evolveByName(ctx, tbl, want)
	}
	if err != nil {
		return err
	}
	return c.replace(ctx, tbl, id, files, withIDs)
}

// load is the table ident, loaded once since the catalog was opened.
// loadUnlessHeld loads the table ident, nil when the catalog has none,
// and tells whether its current snapshot holds billsnap snapshot id or a
// later one already: then there is nothing to commit.
func (c *Catalog) loadUnlessHeld(ctx context.Context, ident table.Identifier, id string) (*table.Table, bool, error) {
	tbl, err := c.load(ctx, ident)
	switch {
	case err == nil:
		return tbl, Held(tbl.CurrentSnapshot()) >= id, nil
	case errors.Is(err, catalog.ErrNoSuchTable):
		return nil, false, nil
	}
	return nil, false, err
}

func (c *Catalog) load(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	name := ident[len(ident)-1]
	if tbl := c.tables.get(name); tbl != nil {
		return tbl, nil
	}
	tbl, err := c.cat.LoadTable(ctx, ident)
	if err == nil {
		c.tables.put(name, tbl)
	}
	return tbl, err
}

// fileSchema is the Iceberg schema of a Parquet file's columns: with the
// file's field IDs when it has them (withIDs), with fresh ones when it is
// a file written before billsnap gave its columns IDs (parquet-go wrote
// field ID 0 there, which Iceberg reads as none).
func fileSchema(path string) (sc *ice.Schema, withIDs bool, err error) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	as, err := pqarrow.FromParquet(r.MetaData().Schema, &pqarrow.ArrowReadProperties{}, r.MetaData().KeyValueMetadata())
	if err != nil {
		return nil, false, fmt.Errorf("the schema of %s: %w", path, err)
	}
	missing := 0
	for _, f := range as.Fields() {
		if withoutID(f) {
			missing++
		}
	}
	switch missing {
	case 0:
		sc, err = table.ArrowSchemaToIceberg(as, false, nil)
		return sc, true, err
	case len(as.Fields()):
		sc, err = table.ArrowSchemaToIcebergWithFreshIDs(as, false)
		return sc, false, err
	}
	return nil, false, fmt.Errorf("%s: some columns have field IDs and others not", path)
}

// withoutID tells whether a column has no field ID (or ID 0 or less,
// which Iceberg takes for none).
func withoutID(f arrow.Field) bool {
	id, ok := f.Metadata.GetValue(table.ArrowParquetFieldIDKey)
	return !ok || id == "" || id[0] == '-' || id == "0"
}

// create creates the table ident for files of schema sc, at PREFIX/<name>
// unless the catalog gives tables their locations.
// The catalog numbers a new table's columns afresh, 1…N in order, so a
// schema whose IDs are not that is set afterwards (setSchema) on a table
// created without columns. A table for files without field IDs gets a
// name mapping from its columns' names to its IDs, which readers apply to
// such files.
func (c *Catalog) create(ctx context.Context, ident table.Identifier, sc *ice.Schema, withIDs bool) (*table.Table, error) {
	props := ice.Properties{}
	if !withIDs {
		mapping, err := json.Marshal(sc.NameMapping())
		if err != nil {
			return nil, err
		}
		props[table.DefaultNameMappingKey] = string(mapping)
	} else if !numberedInOrder(sc) {
		sc = ice.NewSchema(0)
	}
	opts := []catalog.CreateTableOpt{catalog.WithProperties(props)}
	if !c.assigns {
		opts = append(opts, catalog.WithLocation(c.root+"/"+ident[len(ident)-1]))
	}
	return c.cat.CreateTable(ctx, ident, sc, opts...)
}

// DataPath is the folder table's data files go in: write.data.path when
// the table sets it, else its location's data/ folder. A table not yet
// created is created first when the catalog gives tables their locations
// (with the schema of the file at schemaOf); otherwise it will be at
// PREFIX/<table>.
func (c *Catalog) DataPath(ctx context.Context, name, schemaOf string) (string, error) {
	ctx = c.io(ctx)
	ident := append(slices.Clone(c.ns), name)
	tbl, err := c.load(ctx, ident)
	switch {
	case errors.Is(err, catalog.ErrNoSuchTable) && !c.assigns:
		return lake.DataFolder(c.root, name), nil
	case errors.Is(err, catalog.ErrNoSuchTable):
		want, withIDs, err := fileSchema(schemaOf)
		if err != nil {
			return "", err
		}
		if tbl, err = c.create(ctx, ident, want, withIDs); err != nil {
			return "", fmt.Errorf("iceberg: creating %s: %w", name, err)
		}
		c.tables.put(name, tbl)
		crashpoint.Hit("iceberg.created")
	case err != nil:
		return "", err
	}
	if p := tbl.Properties()[table.WriteDataPathKey]; p != "" {
		return strings.TrimSuffix(p, "/"), nil
	}
	return strings.TrimSuffix(tbl.Location(), "/") + "/data", nil
}

// numberedInOrder tells whether sc's field IDs are 1…N in order.
func numberedInOrder(sc *ice.Schema) bool {
	for i, f := range sc.Fields() {
		if f.ID != i+1 {
			return false
		}
	}
	return true
}

// setSchema makes want, with its own field IDs, the table's current
// schema, unless it is already. An ID that an earlier schema of the table
// gave to another column (a table created before billsnap gave its
// columns IDs, under another fields key) is refused: the table's files
// would be read wrongly.
func (c *Catalog) setSchema(ctx context.Context, tbl *table.Table, want *ice.Schema) (*table.Table, error) {
	if tbl.Schema().Equals(want) {
		return tbl, nil
	}
	if err := reusesNoID(tbl, want); err != nil {
		return nil, err
	}
	reqs := []table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID()), table.AssertCurrentSchemaID(tbl.Schema().ID)}
	updates := []table.Update{table.NewAddSchemaUpdate(want), table.NewSetCurrentSchemaUpdate(-1)}
	if _, _, err := c.cat.CommitTable(ctx, tbl.Identifier(), reqs, updates); err != nil {
		return nil, fmt.Errorf("setting the schema: %w", err)
	}
	crashpoint.Hit("iceberg.schema")
	c.tables.put(tableName(tbl), nil)
	return c.load(ctx, tbl.Identifier())
}

// reusesNoID is an error naming the first field of want whose ID a
// schema of tbl gives to a column of another name or type.
func reusesNoID(tbl *table.Table, want *ice.Schema) error {
	for _, sc := range tbl.Metadata().Schemas() {
		for _, f := range want.Fields() {
			if g, ok := sc.FindFieldByID(f.ID); ok && (g.Name != f.Name || !g.Type.Equals(f.Type)) {
				return fmt.Errorf("field ID %d is %s %s in schema %d of the table, but %s %s in billsnap's catalogue of columns "+
					"(a table created before billsnap gave its columns field IDs, under another fields key): once retention has "+
					"removed the snapshots published before field IDs, drop the table from the Iceberg catalog (the default "+
					"catalog: delete .billsnap/iceberg.db), and the next export creates it anew",
					f.ID, g.Name, g.Type, sc.ID, f.Name, f.Type)
			}
		}
	}
	return nil
}

// evolveByName adds to the table the columns of want (a file without
// field IDs) that it lacks, by name, and maps their names to their new
// IDs.
func (c *Catalog) evolveByName(ctx context.Context, tbl *table.Table, want *ice.Schema) (*table.Table, error) {
	missing := slices.ContainsFunc(want.Fields(), func(f ice.NestedField) bool {
		_, ok := tbl.Schema().FindFieldByName(f.Name)
		return !ok
	})
	if !missing {
		return tbl, nil
	}
	tx := tbl.NewTransaction()
	if err := tx.UpdateSchema(true, false).UnionByNameWith(want).Commit(); err != nil {
		return nil, err
	}
	staged, err := tx.StagedTable()
	if err != nil {
		return nil, err
	}
	mapping, err := json.Marshal(staged.Schema().NameMapping())
	if err != nil {
		return nil, err
	}
	if err := tx.SetProperties(ice.Properties{table.DefaultNameMappingKey: string(mapping)}); err != nil {
		return nil, err
	}
	next, err := tx.Commit(ctx)
	if err == nil {
		c.tables.put(tableName(tbl), next)
	}
	return next, err
}

// replace commits files as the table's current snapshot, holding
// billsnap snapshot id, in place of every data file of the current one
// (empty files included). Files with field IDs committed to a table that
// has a name mapping mark where the files without them end (idsSinceKey).
func (c *Catalog) replace(ctx context.Context, tbl *table.Table, id string, files []string, withIDs bool) error {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return err
	}
	old, err := liveDataFiles(tbl.CurrentSnapshot(), fs)
	if err != nil {
		return err
	}
	add := make([]ice.DataFile, len(files))
	for i, f := range files {
		if add[i], err = table.FileToDataFile(ctx, fs, f, tbl.Schema(), tbl.Spec(), 0, tbl.Properties()); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	tx := tbl.NewTransaction()
	if _, mapped := tbl.Properties()[table.DefaultNameMappingKey]; mapped && withIDs && tbl.Properties()[idsSinceKey] == "" {
		if err := tx.SetProperties(ice.Properties{idsSinceKey: id}); err != nil {
			return err
		}
	}
	if err := tx.ReplaceDataFilesWithDataFiles(ctx, old, add, ice.Properties{SnapshotKey: id}, table.WithoutAutoNameMapping()); err != nil {
		return err
	}
	next, err := tx.Commit(ctx)
	c.tables.put(tableName(tbl), next) // nil on failure: loaded again when next asked
	if err == nil {
		crashpoint.Hit("iceberg.table")
	}
	return err
}

// liveDataFiles are the data files snapshot s lists (none for no
// snapshot), those without rows included.
func liveDataFiles(s *table.Snapshot, fs iceio.IO) ([]ice.DataFile, error) {
	if s == nil {
		return nil, nil
	}
	manifests, err := s.Manifests(fs)
	if err != nil {
		return nil, err
	}
	return dataFilesOf(manifests, fs)
}

// dataFilesOf are the data files that manifests list as live (added or
// existing).
func dataFilesOf(manifests []ice.ManifestFile, fs iceio.IO) ([]ice.DataFile, error) {
	var out []ice.DataFile
	for _, m := range manifests {
		if m.ManifestContent() != ice.ManifestContentData {
			continue
		}
		entries, err := m.FetchEntries(fs, true)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			out = append(out, e.DataFile())
		}
	}
	return out, nil
}

// tableName is the table's name in its namespace.
func tableName(tbl *table.Table) string { return tbl.Identifier()[len(tbl.Identifier())-1] }
