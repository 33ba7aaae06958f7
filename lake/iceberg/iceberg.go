// Package iceberg commits the snapshots published to a lake as Apache
// Iceberg tables, with github.com/apache/iceberg-go: one table per billsnap
// table, located at PREFIX/<table> (its metadata under
// PREFIX/<table>/metadata/). Each billsnap snapshot becomes one Iceberg
// snapshot of each table that replaces the rows of the one before, so the
// current snapshot is the newest billsnap snapshot and an earlier one is
// reached by time travel, by Iceberg snapshot ID or by timestamp. The
// summary of each Iceberg snapshot names its billsnap snapshot
// (billsnap.snapshot-id).
//
// The Parquet files the lake published are registered as they are, never
// rewritten: they carry no field IDs, so every table holds a name mapping
// (schema.name-mapping.default) from its columns to its field IDs.
//
// The catalog is a SQL catalog in a local SQLite file by default (no
// server), or a REST or Glue catalog. Importing the package registers it
// with package lake; a program links it through lake/drivers.
package iceberg

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	_ "modernc.org/sqlite" // the SQL catalog's database: pure Go

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/lake"
)

// SnapshotKey is the property of an Iceberg snapshot's summary that names
// the billsnap snapshot it holds.
const SnapshotKey = "billsnap.snapshot-id"

func init() { lake.RegisterCatalogs(Open) }

// Catalog is the Iceberg catalog of a lake.
type Catalog struct {
	cat  catalog.Catalog
	ns   table.Identifier
	root string  // the lake's URL without options
	db   *sql.DB // the SQL catalog's database; nil for the others
	// tables are the tables loaded or committed since the catalog was
	// opened, by name, so that a table is loaded once per export, not
	// once per snapshot kept and again to expire.
	tables map[string]*table.Table
}

// Open opens (and for a SQL catalog, creates) the catalog o describes for
// the lake at lakeURL, and its namespace.
func Open(ctx context.Context, o lake.Iceberg, lakeURL, out string) (lake.Catalog, error) {
	props, err := ioProps(lakeURL)
	if err != nil {
		return nil, err
	}
	c := &Catalog{ns: table.Identifier{o.Namespace}, root: lake.Root(lakeURL), tables: map[string]*table.Table{}}
	switch o.Catalog {
	case "sql":
		err = c.openSQL(o, out, props)
	case "rest", "glue":
		err = c.openREST(ctx, o, props)
	default:
		err = fmt.Errorf("no catalog %q", o.Catalog)
	}
	if err != nil {
		return nil, err
	}
	if err := c.ensureNamespace(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// ioProps are the properties iceberg-go's file IO needs to reach the lake
// the way lake reaches it: an S3 URL's endpoint, region and addressing.
// Credentials come from the provider's chain, as the lake's do.
func ioProps(lakeURL string) (ice.Properties, error) {
	u, err := url.Parse(lakeURL)
	if err != nil {
		return nil, err
	}
	props := ice.Properties{}
	if u.Scheme != "s3" {
		return props, nil
	}
	q := u.Query()
	if v := q.Get("endpoint"); v != "" {
		props[iceio.S3EndpointURL] = v
	}
	if v := q.Get("region"); v != "" {
		props[iceio.S3Region] = v
	}
	if v := q.Get("use_path_style"); v != "" {
		props[iceio.S3ForceVirtualAddressing] = fmt.Sprint(v != "true")
	}
	return props, nil
}

func (c *Catalog) openSQL(o lake.Iceberg, out string, props ice.Properties) error {
	path := o.SQLiteFile(out)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return err
	}
	cat, err := sqlcat.NewCatalog("billsnap", db, sqlcat.SQLite, props)
	if err != nil {
		db.Close()
		return fmt.Errorf("the SQL catalog in %s: %w", path, err)
	}
	c.cat, c.db = cat, db
	return nil
}

// openREST opens a REST catalog, which the program registers; glue is AWS
// Glue's Iceberg REST endpoint, its requests signed with SigV4 (so the
// Glue SDK is not needed).
func (c *Catalog) openREST(ctx context.Context, o lake.Iceberg, props ice.Properties) error {
	props["type"] = "rest"
	if o.URI != "" {
		props["uri"] = o.URI
	}
	if o.Catalog == "glue" {
		region := cmp.Or(props[iceio.S3Region], os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"))
		if region == "" {
			return errors.New("glue: no AWS region (the region of parquet.url, or AWS_REGION)")
		}
		props["uri"] = cmp.Or(o.URI, "https://glue."+region+".amazonaws.com/iceberg")
		props["rest.sigv4-enabled"], props["rest.signing-region"], props["rest.signing-name"] = "true", region, "glue"
	}
	if o.Warehouse != "" {
		props["warehouse"] = o.Warehouse
	}
	if o.CredentialFile != "" {
		b, err := os.ReadFile(o.CredentialFile)
		if err != nil {
			return err
		}
		props["credential"] = strings.TrimSpace(string(b))
	}
	cat, err := catalog.Load(ctx, "billsnap", props)
	if err != nil {
		return err
	}
	c.cat = cat
	return nil
}

func (c *Catalog) ensureNamespace(ctx context.Context) error {
	ok, err := c.cat.CheckNamespaceExists(ctx, c.ns)
	if err != nil || ok {
		return err
	}
	err = c.cat.CreateNamespace(ctx, c.ns, nil)
	if errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		return nil
	}
	return err
}

// Close lets go of the catalog.
func (c *Catalog) Close() error {
	if cl, ok := c.cat.(interface{ Close() error }); ok {
		cl.Close()
	}
	if c.db != nil {
		return c.db.Close()
	}
	return nil
}

// Commit makes m the current snapshot of each table it has files of (every
// table has, empty or not, unless the collections key leaves its list
// out: such a table keeps its current snapshot, whose summary names the
// billsnap snapshot it holds).
func (c *Catalog) Commit(ctx context.Context, m lake.Manifest, local []lake.Local) error {
	byTable := map[string][]string{}
	for _, f := range m.Files {
		byTable[f.Table] = append(byTable[f.Table], c.root+"/"+f.Key)
	}
	for _, l := range local {
		if _, ok := byTable[l.Table]; !ok {
			return fmt.Errorf("iceberg: snapshot %s has local files of %s but none published", m.Snapshot, l.Table)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byTable)) {
		i := slices.IndexFunc(local, func(l lake.Local) bool { return l.Table == name })
		if i < 0 {
			return fmt.Errorf("iceberg: snapshot %s: no local file of %s to read its schema from", m.Snapshot, name)
		}
		if err := c.commitTable(ctx, name, m.Snapshot, byTable[name], local[i].Path); err != nil {
			return fmt.Errorf("iceberg: committing %s of snapshot %s: %w", name, m.Snapshot, err)
		}
	}
	return nil
}

// commitTable makes files (snapshot id's files of table name) the table's
// current snapshot, creating the table or evolving its schema first when
// the file at schemaOf needs it.
func (c *Catalog) commitTable(ctx context.Context, name, id string, files []string, schemaOf string) error {
	ident := append(slices.Clone(c.ns), name)
	tbl, err := c.load(ctx, ident)
	if err == nil && Held(tbl.CurrentSnapshot()) >= id {
		return nil
	}
	if err != nil && !errors.Is(err, catalog.ErrNoSuchTable) {
		return err
	}
	want, err := parquetSchema(schemaOf)
	if err != nil {
		return err
	}
	if tbl == nil {
		if tbl, err = c.create(ctx, ident, want); err != nil {
			return err
		}
	}
	tx := tbl.NewTransaction()
	if err := evolve(tx, tbl.Schema(), want); err != nil {
		return err
	}
	props := ice.Properties{SnapshotKey: id}
	old, err := currentFiles(ctx, tbl)
	if err != nil {
		return err
	}
	if len(old) == 0 {
		err = tx.AddFiles(ctx, files, props, false)
	} else {
		err = tx.ReplaceDataFiles(ctx, old, files, props)
	}
	if err != nil {
		return err
	}
	if c.tables[name], err = tx.Commit(ctx); err == nil {
		crashpoint.Hit("iceberg.table")
	}
	return err
}

// load is the table ident, loaded once since the catalog was opened.
func (c *Catalog) load(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	name := ident[len(ident)-1]
	if tbl := c.tables[name]; tbl != nil {
		return tbl, nil
	}
	tbl, err := c.cat.LoadTable(ctx, ident)
	if err == nil {
		c.tables[name] = tbl
	}
	return tbl, err
}

// Held is the billsnap snapshot an Iceberg snapshot holds; "" for none.
func Held(s *table.Snapshot) string {
	if s == nil || s.Summary == nil {
		return ""
	}
	return s.Summary.Properties[SnapshotKey]
}

// create creates the table ident with schema sc at PREFIX/<name>, and
// the name mapping that makes the files without field IDs readable.
func (c *Catalog) create(ctx context.Context, ident table.Identifier, sc *ice.Schema) (*table.Table, error) {
	mapping, err := json.Marshal(sc.NameMapping())
	if err != nil {
		return nil, err
	}
	return c.cat.CreateTable(ctx, ident, sc, catalog.WithLocation(c.root+"/"+ident[len(ident)-1]),
		catalog.WithProperties(ice.Properties{table.DefaultNameMappingKey: string(mapping)}))
}

// evolve adds to the table the columns of want it lacks (a column the
// fields key added), and maps their names to their new field IDs.
func evolve(tx *table.Transaction, have, want *ice.Schema) error {
	missing := false
	for _, f := range want.Fields() {
		if _, ok := have.FindFieldByName(f.Name); !ok {
			missing = true
		}
	}
	if !missing {
		return nil
	}
	if err := tx.UpdateSchema(true, false).UnionByNameWith(want).Commit(); err != nil {
		return err
	}
	staged, err := tx.StagedTable()
	if err != nil {
		return err
	}
	mapping, err := json.Marshal(staged.Schema().NameMapping())
	if err != nil {
		return err
	}
	return tx.SetProperties(ice.Properties{table.DefaultNameMappingKey: string(mapping)})
}

// currentFiles are the data files of the table's current snapshot.
func currentFiles(ctx context.Context, tbl *table.Table) ([]string, error) {
	if tbl.CurrentSnapshot() == nil {
		return nil, nil
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = t.File.FilePath()
	}
	return out, nil
}

// parquetSchema is the Iceberg schema of a Parquet file's columns, with
// fresh field IDs (the table's own IDs are matched by name).
func parquetSchema(path string) (*ice.Schema, error) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sc, err := pqarrow.FromParquet(r.MetaData().Schema, &pqarrow.ArrowReadProperties{}, r.MetaData().KeyValueMetadata())
	if err != nil {
		return nil, fmt.Errorf("the schema of %s: %w", path, err)
	}
	return table.ArrowSchemaToIcebergWithFreshIDs(sc, false)
}

// Expire removes from every table the Iceberg snapshots of billsnap
// snapshots keep does not name (and the files only they use), keeping
// the newest ones.
func (c *Catalog) Expire(ctx context.Context, keep []string) error {
	tables, err := c.Tables(ctx)
	if err != nil {
		return err
	}
	for _, tbl := range tables {
		kept := 0
		snaps := tbl.Metadata().Snapshots()
		for _, s := range snaps {
			if slices.Contains(keep, Held(&s)) {
				kept++
			}
		}
		if kept == len(snaps) || kept == 0 {
			continue
		}
		tx := tbl.NewTransaction()
		if err := tx.ExpireSnapshots(table.WithRetainLast(kept), table.WithOlderThan(0)); err != nil {
			return err
		}
		name := tbl.Identifier()[len(tbl.Identifier())-1]
		if c.tables[name], err = tx.Commit(ctx); err != nil {
			return fmt.Errorf("iceberg: expiring the snapshots of %s: %w", strings.Join(tbl.Identifier(), "."), err)
		}
	}
	return nil
}

// Metadata is each table's current metadata file, by table name.
func (c *Catalog) Metadata(ctx context.Context) (map[string]string, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, t := range tables {
		out[t.Identifier()[len(t.Identifier())-1]] = t.MetadataLocation()
	}
	return out, nil
}

// Tables are the tables of the catalog's namespace, by name, loaded.
func (c *Catalog) Tables(ctx context.Context) ([]*table.Table, error) {
	var out []*table.Table
	for ident, err := range c.cat.ListTables(ctx, c.ns) {
		if err != nil {
			return nil, err
		}
		tbl, err := c.load(ctx, ident)
		if err != nil {
			return nil, err
		}
		out = append(out, tbl)
	}
	slices.SortFunc(out, func(a, b *table.Table) int {
		return cmp.Compare(strings.Join(a.Identifier(), "."), strings.Join(b.Identifier(), "."))
	})
	return out, nil
}
