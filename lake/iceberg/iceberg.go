//go:build lake

// Package iceberg commits the snapshots published to a lake as Apache
// Iceberg tables, with github.com/apache/iceberg-go: one table per billsnap
// table, located at PREFIX/<table> (its metadata under
// PREFIX/<table>/metadata/, its data under PREFIX/<table>/data/, Iceberg's
// default write.data.path), or where a REST catalog puts it (a REST
// catalog gives its tables their locations: S3 Tables' table buckets
// accept no other). Each billsnap snapshot becomes one Iceberg
// snapshot of each table that replaces the rows of the one before, so the
// current snapshot is the newest billsnap snapshot and an earlier one is
// reached by time travel, by Iceberg snapshot ID or by timestamp. The
// summary of each Iceberg snapshot names its billsnap snapshot
// (billsnap.snapshot-id).
//
// Each table also has a history table, <table>_history, every version of
// every record as one relation (CommitHistory): each commit adds the
// versions closed since the snapshot it held and replaces its one file of
// current versions, so that expiring its earlier snapshots never drops a
// version.
//
// The Parquet files the lake published are registered as they are, never
// rewritten. They carry the field IDs of billsnap's catalogue of columns,
// and each table's schema has the same IDs (set explicitly: a catalog
// numbers a new table's columns afresh). Files published before billsnap
// gave its columns IDs have none; a table that holds such files keeps a
// name mapping (schema.name-mapping.default) for them until no snapshot it
// keeps lists one.
//
// [Catalog.Expire] expires the Iceberg snapshots of billsnap snapshots the
// store no longer keeps.
//
// The catalog is a SQL catalog in a local SQLite file by default (no
// server; modernc.org/sqlite, pure Go), or a REST or Glue catalog. A program that publishes passes Open
// down from its main as its lake.CatalogOpener, and links the drivers of
// its file IO through lake/drivers.
package iceberg

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	iceio "github.com/apache/iceberg-go/io"
	s3io "github.com/apache/iceberg-go/io/gocloud/s3"
	"github.com/apache/iceberg-go/table"
	iceutils "github.com/apache/iceberg-go/utils"
	"github.com/aws/aws-sdk-go-v2/aws"
	_ "modernc.org/sqlite" // the SQL catalog's database: pure Go

	"github.com/billsnap/billsnap/lake"
)

// SnapshotKey is the property of an Iceberg snapshot's summary that names
// the billsnap snapshot it holds.
const SnapshotKey = "billsnap.snapshot-id"

// Catalog is the Iceberg catalog of a lake.
type Catalog struct {
	cat  catalog.Catalog
	ns   table.Identifier
	root string  // the lake's URL without options
	db   *sql.DB // the SQL catalog's database; nil for the others
	// assigns is whether the catalog gives a new table its location
	// (rest), rather than billsnap (PREFIX/<table>).
	assigns bool
	// tables are the tables loaded or committed since the catalog was
	// opened, by name, so that a table is loaded once per export, not
	// once per snapshot kept and again to expire.
	tables loaded
	// aws is the AWS configuration of the lake's S3 files, loaded once
	// for every file system the tables open (nil when the lake is not on
	// S3): each would load it again, and with AWS_CA_BUNDLE set parse the
	// bundle again and open connections of its own.
	aws *aws.Config
	// created is whether Open created the namespace.
	created bool
}

// Open opens (and for a SQL catalog, creates) the catalog o describes for
// the lake at lakeURL, and its namespace.
func Open(ctx context.Context, o lake.Iceberg, lakeURL, out string) (lake.Catalog, error) {
	props, err := ioProps(lakeURL)
	if err != nil {
		return nil, err
	}
	c := &Catalog{ns: table.Identifier{o.Namespace}, root: lake.Root(lakeURL), assigns: o.Catalog == "rest"}
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
	if c.aws, err = awsConfig(ctx, lakeURL, props); err != nil {
		c.Close()
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
	// One connection: the tables committed at once take turns at it.
	// SQLite writes one transaction at a time, and a transaction that
	// read before it writes meets SQLITE_BUSY at once, busy timeout or not.
	db.SetMaxOpenConns(1)
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
	auth, err := o.RESTProperties(props[iceio.S3Region])
	if err != nil {
		return err
	}
	maps.Copy(props, auth)
	if o.Catalog == "glue" {
		props["uri"] = cmp.Or(o.URI, "https://glue."+auth["rest.signing-region"]+".amazonaws.com/iceberg")
	}
	if o.Warehouse != "" {
		props["warehouse"] = o.Warehouse
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
	c.created = err == nil
	return err
}

// CreatedNamespace is whether opening the catalog created its namespace.
func (c *Catalog) CreatedNamespace() bool { return c.created }

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

// awsConfig is the AWS configuration the S3 files of the lake at lakeURL
// are opened with, as iceberg-go loads it from props; nil for a lake not
// on S3.
func awsConfig(ctx context.Context, lakeURL string, props ice.Properties) (*aws.Config, error) {
	if u, err := url.Parse(lakeURL); err != nil || u.Scheme != "s3" {
		return nil, err
	}
	cfg, err := s3io.ParseAWSConfig(ctx, props)
	if err != nil {
		return nil, fmt.Errorf("the AWS configuration of %s: %w", lake.Root(lakeURL), err)
	}
	return cfg, nil
}

// io is ctx carrying the lake's AWS configuration, if any, for the file
// systems that the tables open under it.
func (c *Catalog) io(ctx context.Context) context.Context {
	if c.aws == nil {
		return ctx
	}
	return iceutils.WithAwsConfig(ctx, c.aws)
}

// loaded are a catalog's tables loaded or committed since it was opened,
// by name: the commits of several tables at once share them.
type loaded struct {
	mu sync.Mutex
	m  map[string]*table.Table
}

// get is the table name, or nil.
func (l *loaded) get(name string) *table.Table {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[name]
}

// put sets the table name to tbl; nil forgets it.
func (l *loaded) put(name string, tbl *table.Table) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*table.Table{}
	}
	if tbl == nil {
		delete(l.m, name)
		return
	}
	l.m[name] = tbl
}

// Held is the billsnap snapshot an Iceberg snapshot holds; "" for none.
func Held(s *table.Snapshot) string {
	if s == nil || s.Summary == nil {
		return ""
	}
	return s.Summary.Properties[SnapshotKey]
}

// Metadata is each table's current metadata file, by table name.
func (c *Catalog) Metadata(ctx context.Context) (map[string]string, error) {
	ctx = c.io(ctx)
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
	ctx = c.io(ctx)
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
