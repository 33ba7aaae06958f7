package lake

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/layout"
)

// Catalog keeps the published snapshots as tables of an open table
// format (Apache Iceberg): one table per billsnap table, whose current
// snapshot is the newest published billsnap snapshot, and whose earlier
// snapshots are the earlier ones still kept.
type Catalog interface {
	// DataPath is the URL of the folder table's data files go in: its
	// location's data/ folder (Iceberg's write.data.path), the location
	// being the one the catalog has, or gives, the table; a catalog that
	// gives tables their locations creates a table it lacks, with the
	// schema of the local file schemaOf, to know it. Otherwise a table
	// not yet created is at ROOT/<table>.
	DataPath(ctx context.Context, table, schemaOf string) (string, error)
	// Commit makes snapshot m the current one of each of its tables,
	// registering its files as they are; local are its files on the
	// local disk (their schema is read there). A table that already
	// holds m, or a later snapshot, is left as it is.
	Commit(ctx context.Context, m Manifest, local []Local) error
	// Holds is the billsnap snapshot table's current snapshot holds; ""
	// when the table has none, or is not there.
	Holds(ctx context.Context, table string) (string, error)
	// CommitHistory makes a history table's current snapshot hold
	// snapshot id: it adds files (URLs: the versions closed since the
	// snapshot the table held, and the versions current after id, in the
	// file whose name begins with CurrentPrefix) and drops the current
	// versions' file it held. The table is created, or its schema made
	// that of the local file schemaOf, first. A table that holds id, or a
	// later snapshot, is left as it is.
	CommitHistory(ctx context.Context, table, id string, files []string, schemaOf string) error
	// Expire forgets, in every table, the snapshots keep does not name;
	// Prune calls it after removing their manifests and before their
	// data.
	Expire(ctx context.Context, keep []string) error
	// Referenced is every file the tables still reference, and where
	// their metadata is: Prune deletes none of those files, and every
	// other object in those directories.
	Referenced(ctx context.Context) (Refs, error)
	// Metadata is each table's current metadata file, by table name.
	Metadata(ctx context.Context) (map[string]string, error)
	Close() error
}

// HistorySuffix names a table's history table: <table>_history, every
// version of every record of <table>, one relation.
const HistorySuffix = "_history"

// CurrentPrefix begins the name of a history table's file of the
// versions current after a snapshot: the one file each commit replaces.
const CurrentPrefix = "current-"

// Refs are the files a catalog's tables reference (their metadata, and
// the data of every snapshot they keep) and the directories their
// metadata is written to, as URLs under the lake's root.
type Refs struct {
	Files        map[string]bool
	MetadataDirs []string
}

// Iceberg is the iceberg section of the configuration: the catalog the
// snapshots published to parquet.url are committed to.
type Iceberg struct {
	// Catalog is sql (the default: a SQLite file, no server), rest, glue
	// (AWS Glue's Iceberg REST endpoint, signed with SigV4), or none.
	Catalog string `yaml:"catalog"`
	// URI is, for sql, the SQLite file (relative to out; default
	// .billsnap/iceberg.db); for rest, the catalog's URL; for glue, the
	// endpoint when not https://glue.REGION.amazonaws.com/iceberg.
	URI string `yaml:"uri"`
	// Warehouse is passed to a rest catalog; for glue it is the AWS
	// account ID whose Data Catalog holds the tables.
	Warehouse string `yaml:"warehouse"`
	// Namespace holds the tables; default billsnap.
	Namespace string `yaml:"namespace"`
	// CredentialFile holds a rest catalog's OAuth2 client credential
	// (ID:SECRET), kept out of the configuration.
	CredentialFile string `yaml:"credential_file"`
	// Auth is how a rest catalog's requests are authenticated: none,
	// sigv4 (signed with the AWS credentials the lake uses, as S3 Tables
	// and SeaweedFS require) or oauth2 (CredentialFile's client
	// credential exchanged for a token: Polaris, Nessie, Lakekeeper);
	// by default oauth2 when CredentialFile is set, otherwise none. glue
	// is always sigv4.
	Auth string `yaml:"auth"`
	// SigningName is sigv4's service name (default s3tables; glue's is
	// glue); SigningRegion its region (default the region of
	// parquet.url, else AWS_REGION).
	SigningName   string `yaml:"signing_name"`
	SigningRegion string `yaml:"signing_region"`
	// OAuth2URI is oauth2's token endpoint when it is not the catalog's
	// own (URI/v1/oauth/tokens); Scope the scope asked (default catalog).
	OAuth2URI string `yaml:"oauth2_uri"`
	Scope     string `yaml:"scope"`
}

// SQLiteFile is a sql catalog's file: URI, under the store out when it is
// relative, made absolute.
func (o Iceberg) SQLiteFile(out string) string {
	path := o.URI
	if !filepath.IsAbs(path) {
		path = filepath.Join(out, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}

// CatalogKinds are the values of iceberg.catalog.
var CatalogKinds = []string{"sql", "rest", "glue", "none"}

// DefaultIceberg is the iceberg section by default: a SQL catalog in a
// local file.
func DefaultIceberg() Iceberg {
	return Iceberg{Catalog: "sql", URI: layout.IcebergCatalog, Namespace: "billsnap"}
}

// Validate returns every problem of o, each a *configkey.Error naming
// its key.
func (o Iceberg) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) { errs = append(errs, configkey.Errorf(key, format, args...)) }
	switch o.Catalog {
	case "sql", "none":
	case "glue":
		if o.Warehouse == "" {
			bad("warehouse", "a glue catalog needs the AWS account ID whose Data Catalog holds the tables")
		}
	case "rest":
		if u, err := url.Parse(o.URI); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("uri", "a rest catalog needs its http(s) URL, not %q", o.URI)
		} else if u.User != nil {
			bad("uri", "holds credentials: put the client credential in iceberg.credential_file")
		}
	default:
		bad("catalog", "must be one of %s, not %q", strings.Join(CatalogKinds, ", "), o.Catalog)
	}
	if o.Catalog == "sql" && o.URI == "" {
		bad("uri", "a sql catalog needs its SQLite file")
	}
	if !SafeIdentifier(o.Namespace) {
		bad("namespace", "must be one name of letters, digits and underscores (at most 128, a letter or underscore first), not %q", o.Namespace)
	}
	if o.CredentialFile != "" {
		if _, err := os.Stat(o.CredentialFile); err != nil {
			bad("credential_file", "%v", err)
		}
	}
	errs = append(errs, o.validateAuth()...)
	return errors.Join(errs...)
}

// CatalogOpener opens the catalog o describes for the lake at lakeURL;
// a relative sql URI is under the store's directory out. A program that
// publishes passes its opener down from its main (package lake/iceberg's
// Open), so that only such a program links iceberg-go.
type CatalogOpener func(ctx context.Context, o Iceberg, lakeURL, out string) (Catalog, error)

// OpenCatalog opens, with open, the catalog of o for the lake at lakeURL;
// nil when o says none.
func OpenCatalog(ctx context.Context, open CatalogOpener, o Iceberg, lakeURL, out string) (Catalog, error) {
	if o.Catalog == "none" {
		return nil, nil
	}
	c, err := open(ctx, o, lakeURL, out)
	if err != nil {
		return nil, fmt.Errorf("iceberg.catalog %s: %w", o.Catalog, err)
	}
	return c, nil
}

// TableMetadata is the current metadata file of each table of the
// catalog of o for the lake at lakeURL, opened with open, by table; nil
// when o says none.
func TableMetadata(ctx context.Context, open CatalogOpener, o Iceberg, lakeURL, out string) (map[string]string, error) {
	c, err := OpenCatalog(ctx, open, o, lakeURL, out)
	if err != nil || c == nil {
		return nil, err
	}
	defer c.Close()
	return c.Metadata(ctx)
}

// SafeIdentifier tells whether name is an identifier every engine the
// lake's tables are read by takes unquoted, and no statement it is
// printed into can be broken by: ASCII letters, digits and underscores,
// a letter or underscore first, at most 128 bytes. (Statements quote it
// too: lake/ddl.)
func SafeIdentifier(name string) bool {
	if name == "" || len(name) > 128 || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
