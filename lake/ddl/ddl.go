// Package ddl writes the statements that attach the tables of a lake (the
// object storage of parquet.url) to a query engine: Trino, Spark, Athena or
// DuckDB. They attach the Iceberg tables where the engine can, and
// external Hive-partitioned Parquet tables otherwise (or when asked).
package ddl

import (
	"fmt"
	"io"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/lake"
)

// Engines are the engines Write knows.
var Engines = []string{"trino", "spark", "athena", "duckdb"}

// Table is a table of the lake, its columns in Parquet order (without
// snapshot_id, the partition).
type Table struct {
	Name    string
	Columns []Column
}

// Column is a column and its kind, named as the fields key names kinds:
// string, timestamp, money, quantity, integer, bigint, boolean or number.
type Column struct{ Name, Kind string }

// Lake is what the statements name.
type Lake struct {
	URL      string       // parquet.url, with its options
	Iceberg  lake.Iceberg // the catalog's section of the configuration
	SQLiteDB string       // a sql catalog's file, absolute
	Tables   []Table
	Metadata map[string]string // table name -> its Iceberg table's current metadata file
	Hive     bool              // external Hive tables even where Iceberg is possible
}

// Write writes the statements that attach l's tables to engine.
func Write(w io.Writer, engine string, l Lake) error {
	root := lake.Root(l.URL)
	if !slices.Contains(Engines, engine) {
		return fmt.Errorf("no engine %q: want one of %s", engine, strings.Join(Engines, ", "))
	}
	if engine == "athena" && !strings.HasPrefix(root, "s3://") {
		return fmt.Errorf("athena reads s3:// only, not %s", root)
	}
	p := &printer{w: w, l: l, root: root, engine: engine}
	p.ns = p.id(l.Iceberg.Namespace)
	fmt.Fprintf(w, "-- billsnap: the tables of %s for %s.\n", root, engine)
	switch {
	case l.Hive || l.Iceberg.Catalog == "none" || (engine == "athena" && l.Iceberg.Catalog != "glue"):
		p.hive(engine)
	default:
		p.iceberg(engine)
	}
	return p.err
}

type printer struct {
	w      io.Writer
	l      Lake
	root   string
	ns     string // the namespace, quoted (id)
	engine string
	err    error
}

// id is name quoted as an identifier of the engine's DDL: in double
// quotes for Trino and DuckDB, in backticks for Spark and Athena (whose
// DDL is Hive's), the quote doubled inside. Every identifier a statement
// names is quoted, though the configuration admits only safe ones
// (lake.SafeIdentifier).
func (p *printer) id(name string) string {
	if p.engine == "spark" || p.engine == "athena" {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return dq(name)
}

// dq is name quoted in double quotes, as Trino, DuckDB and Athena's
// queries quote an identifier.
func dq(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// str is s as a string literal of the engine: in single quotes, a quote
// doubled (Spark, whose literals take backslash escapes, gets \' and \\).
func (p *printer) str(s string) string {
	if p.engine == "spark" {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// hive writes external tables partitioned by snapshot_id, over each
// table's data folder.
func (p *printer) hive(engine string) {
	p.printf("-- External Hive-partitioned Parquet tables, one partition per snapshot (snapshot_id).\n" +
		"-- A snapshot is complete when its manifest, _billsnap/manifests/<snapshot_id>.json, exists;\n" +
		"-- _billsnap/latest names the newest. A snapshot_id directory without a manifest is a\n" +
		"-- publish cut short: its files are removed by the next export. Query complete ones only.\n" +
		"-- The history of each table (<table>_history) is published as an Iceberg table only.\n")
	if engine != "duckdb" {
		p.printf("-- Each table reads its data/ folder. Snapshots published before billsnap used that layout\n" +
			"-- (<table>/snapshot_id=<id>/) are not in these tables: read them through the Iceberg\n" +
			"-- tables or the manifests until retention removes them.\n")
	}
	switch engine {
	case "duckdb":
		p.duckdbHive()
	case "trino":
		p.printf("CREATE SCHEMA IF NOT EXISTS hive.%s;\n", p.ns)
		for _, t := range p.l.Tables {
			p.printf("CREATE TABLE hive.%s.%s (\n%s,\n  snapshot_id varchar\n) WITH (external_location = %s, format = 'PARQUET', partitioned_by = ARRAY['snapshot_id']);\n",
				p.ns, p.id(t.Name), p.columns(t, trinoTypes), p.str(p.location(t.Name)+"/data"))
			p.printf("CALL hive.system.sync_partition_metadata(%s, %s, 'FULL');\n", p.str(p.l.Iceberg.Namespace), p.str(t.Name))
		}
	case "spark":
		p.printf("CREATE DATABASE IF NOT EXISTS %s;\n", p.ns)
		for _, t := range p.l.Tables {
			p.printf("CREATE TABLE IF NOT EXISTS %s.%s (\n%s,\n  snapshot_id STRING\n) USING PARQUET PARTITIONED BY (snapshot_id) LOCATION %s;\n",
				p.ns, p.id(t.Name), p.columns(t, sparkTypes), p.str(sparkURL(p.location(t.Name))+"/data"))
			p.printf("MSCK REPAIR TABLE %s.%s;\n", p.ns, p.id(t.Name))
		}
	case "athena":
		p.printf("CREATE DATABASE IF NOT EXISTS %s;\n", p.ns)
		for _, t := range p.l.Tables {
			p.printf("CREATE EXTERNAL TABLE IF NOT EXISTS %s.%s (\n%s\n) PARTITIONED BY (snapshot_id string) STORED AS PARQUET LOCATION %s;\n",
				p.ns, p.id(t.Name), p.columns(t, athenaTypes), p.str(p.location(t.Name)+"/data/"))
			p.printf("MSCK REPAIR TABLE %s.%s;\n", p.ns, p.id(t.Name))
		}
	}
}

// location is the URL of table's location: the folder of its Iceberg
// metadata's metadata/ folder where the catalog has it (a REST catalog
// gives its tables their locations), ROOT/<table> otherwise.
func (p *printer) location(table string) string {
	if m := p.l.Metadata[table]; m != "" {
		return strings.TrimSuffix(m[:strings.LastIndex(m, "/")], "/metadata")
	}
	return p.root + "/" + table
}

// duckdbHive writes views that read only complete snapshots (those with
// a manifest), and latest_ views of the one latest names. A table's view
// reads the snapshot_id folders at any depth under its location: those
// of its data/ folder, and those beside it where billsnap published
// before it used Iceberg's layout.
func (p *printer) duckdbHive() {
	p.duckdbSecret()
	root := duckdbPath(p.root)
	p.printf("CREATE SCHEMA IF NOT EXISTS %s;\n", p.ns)
	p.printf("CREATE OR REPLACE VIEW %s.published AS SELECT snapshot_id FROM read_json(%s, columns = {snapshot_id: 'VARCHAR'});\n", p.ns, p.str(root+"/_billsnap/manifests/*.json"))
	for _, t := range p.l.Tables {
		p.printf("CREATE OR REPLACE VIEW %s.%s AS SELECT * FROM read_parquet(%s, hive_partitioning = true, hive_types = {snapshot_id: VARCHAR}, union_by_name = true) WHERE snapshot_id IN (SELECT snapshot_id FROM %s.published);\n",
			p.ns, p.id(t.Name), p.str(duckdbPath(p.location(t.Name))+"/**/snapshot_id=*/*.parquet"), p.ns)
		p.printf("CREATE OR REPLACE VIEW %s.%s AS SELECT * FROM %s.%s WHERE snapshot_id = (SELECT trim(content, chr(10) || ' ') FROM read_text(%s));\n",
			p.ns, p.id("latest_"+t.Name), p.ns, p.id(t.Name), p.str(root+"/_billsnap/latest"))
	}
}

// duckdbSecret writes the httpfs set-up an s3:// lake needs, from its
// URL's options; credentials come from the provider's chain.
func (p *printer) duckdbSecret() {
	u, err := url.Parse(p.l.URL)
	if err != nil || u.Scheme != "s3" {
		return
	}
	q := u.Query()
	opts := []string{"TYPE s3", "PROVIDER credential_chain"}
	if e, err := url.Parse(q.Get("endpoint")); err == nil && e.Host != "" {
		opts = append(opts, "ENDPOINT "+p.str(e.Host), fmt.Sprintf("USE_SSL %t", e.Scheme == "https"))
	}
	if r := q.Get("region"); r != "" {
		opts = append(opts, "REGION "+p.str(r))
	}
	if q.Get("use_path_style") == "true" {
		opts = append(opts, "URL_STYLE 'path'")
	}
	p.printf("INSTALL httpfs; LOAD httpfs; INSTALL aws; LOAD aws;\nCREATE OR REPLACE SECRET billsnap_lake (%s);\n", strings.Join(opts, ", "))
}

// iceberg writes what attaches the Iceberg tables, their history tables
// included.
func (p *printer) iceberg(engine string) {
	p.historyNote()
	switch {
	case engine == "duckdb":
		p.duckdbSecret()
		p.printf("INSTALL iceberg; LOAD iceberg;\nCREATE SCHEMA IF NOT EXISTS %s;\n", p.ns)
		for _, t := range p.tables() {
			p.printf("CREATE OR REPLACE VIEW %s.%s AS SELECT * FROM iceberg_scan(%s);\n", p.ns, p.id(t), p.str(p.l.Metadata[t]))
		}
		p.printf("-- The views read the metadata current when this was printed: print and run them again\n-- after an export. Time travel: iceberg_scan('…', snapshot_from_id => ID) or snapshot_from_timestamp => TIMESTAMP.\n")
	case p.l.Iceberg.Catalog == "sql" && engine == "trino":
		p.trinoRegister()
	case engine == "athena":
		p.printf("-- The Glue catalog billsnap commits to holds the tables: database %s, nothing to attach.\n", dq(p.l.Iceberg.Namespace))
		p.printf("SELECT count(*) FROM %s.%s;\n-- Time travel: FOR VERSION AS OF <snapshot id> or FOR TIMESTAMP AS OF TIMESTAMP '…'.\n",
			dq(p.l.Iceberg.Namespace), dq(p.firstTable()))
	default:
		p.sharedCatalog(engine)
	}
}

// trinoRegister registers each table's current metadata with an Iceberg
// catalog of Trino's own.
func (p *printer) trinoRegister() {
	p.printf("-- Registers the tables with Trino's Iceberg catalog (here named iceberg) at their current\n" +
		"-- metadata. A later export's snapshots appear after CALL iceberg.system.unregister_table(...)\n" +
		"-- and this again; a REST or Glue catalog shared with billsnap needs neither.\n")
	p.printf("CREATE SCHEMA IF NOT EXISTS iceberg.%s;\n", p.ns)
	for _, t := range p.tables() {
		p.printf("CALL iceberg.system.register_table(schema_name => %s, table_name => %s, table_location => %s, metadata_file_name => %s);\n",
			p.str(p.l.Iceberg.Namespace), p.str(t), p.str(p.location(t)), p.str(path.Base(p.l.Metadata[t])))
	}
	p.printf("-- Time travel: SELECT * FROM iceberg.%s.%s FOR VERSION AS OF <snapshot id> (or FOR TIMESTAMP AS OF …);\n"+
		"-- the snapshots and the billsnap snapshot each holds: SELECT snapshot_id, committed_at, summary['billsnap.snapshot-id'] FROM iceberg.%s.%s;\n",
		p.ns, p.id(p.firstTable()), p.ns, p.id(p.firstTable()+"$snapshots"))
}

// sharedCatalog writes the engine's configuration of the catalog billsnap
// commits to: the engine reads the same tables, always current.
func (p *printer) sharedCatalog(engine string) {
	c := p.l.Iceberg
	if engine == "spark" {
		conf := map[string]string{"type": c.Catalog, "warehouse": sparkURL(c.Warehouse)}
		switch c.Catalog {
		case "sql":
			conf = map[string]string{"type": "jdbc", "uri": "jdbc:sqlite:" + p.l.SQLiteDB, "warehouse": sparkURL(p.root)}
		case "rest":
			conf["uri"] = c.URI
		case "glue":
			conf = map[string]string{"type": "glue", "glue.id": c.Warehouse, "warehouse": sparkURL(p.root)}
		}
		p.printf("-- Spark reads the catalog billsnap commits to (the Iceberg runtime on the classpath%s):\n", map[bool]string{true: " and xerial sqlite-jdbc", false: ""}[c.Catalog == "sql"])
		p.printf("--   --conf spark.sql.catalog.billsnap=org.apache.iceberg.spark.SparkCatalog\n")
		for _, k := range []string{"type", "uri", "glue.id", "warehouse"} {
			if conf[k] != "" {
				p.printf("--   --conf spark.sql.catalog.billsnap.%s=%s\n", k, conf[k])
			}
		}
		for _, kv := range p.restProperties(engine) {
			p.printf("--   --conf spark.sql.catalog.billsnap.%s=%s\n", kv[0], kv[1])
		}
		p.printf("SHOW TABLES IN billsnap.%s;\n-- Time travel: SELECT * FROM billsnap.%s.%s VERSION AS OF <snapshot id> (or TIMESTAMP AS OF '…').\n", p.ns, p.ns, p.id(p.firstTable()))
		return
	}
	p.printf("-- Trino reads the catalog billsnap commits to: etc/catalog/billsnap.properties\n--   connector.name=iceberg\n")
	if c.Catalog == "rest" {
		p.printf("--   iceberg.catalog.type=rest\n--   iceberg.rest-catalog.uri=%s\n", c.URI)
		if c.Warehouse != "" {
			p.printf("--   iceberg.rest-catalog.warehouse=%s\n", c.Warehouse)
		}
		for _, kv := range p.restProperties(engine) {
			p.printf("--   %s=%s\n", kv[0], kv[1])
		}
	} else {
		p.printf("--   iceberg.catalog.type=glue\n--   hive.metastore.glue.catalogid=%s\n", c.Warehouse)
	}
	p.printf("SHOW TABLES FROM billsnap.%s;\n-- Time travel: SELECT * FROM billsnap.%s.%s FOR VERSION AS OF <snapshot id>.\n", p.ns, p.ns, p.id(p.firstTable()))
}

// restProperties are the properties engine needs beyond the URI and
// warehouse to reach a rest catalog as billsnap does: its
// authentication, and an S3 endpoint of parquet.url's other than AWS's
// (Iceberg's S3 file IO's and Trino's keys are the same), path-style
// when the lake's is.
func (p *printer) restProperties(engine string) [][2]string {
	c := p.l.Iceberg
	if c.Catalog != "rest" {
		return nil
	}
	u, err := url.Parse(p.l.URL)
	if err != nil {
		return nil
	}
	q := u.Query()
	out := c.EngineProperties(engine, q.Get("region"))
	if e := q.Get("endpoint"); e != "" && u.Scheme == "s3" {
		if engine == "trino" {
			out = append(out, [2]string{"fs.native-s3.enabled", "true"})
		}
		out = append(out, [2]string{"s3.endpoint", e})
		if q.Get("use_path_style") == "true" {
			out = append(out, [2]string{"s3.path-style-access", "true"})
		}
	}
	return out
}

// tables are the names of the tables, and of their history tables
// (<table>_history), that have Iceberg metadata, sorted.
func (p *printer) tables() []string {
	var out []string
	for _, t := range p.l.Tables {
		for _, name := range []string{t.Name, t.Name + lake.HistorySuffix} {
			if p.l.Metadata[name] != "" {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// historyNote says what the history tables are, where the engine reads
// the Iceberg tables.
func (p *printer) historyNote() {
	p.printf("-- <table>_history: every version of every record of <table>, its columns then valid_from,\n" +
		"-- valid_to, snapshot_from, snapshot_to (valid_to NULL while current); as of T:\n" +
		"--   WHERE valid_from <= T AND (valid_to IS NULL OR valid_to > T).\n")
}

func (p *printer) firstTable() string {
	if ts := p.tables(); len(ts) > 0 {
		return ts[0]
	}
	return "invoices"
}

// columns are a table's columns, quoted and typed for the engine.
func (p *printer) columns(t Table, types map[string]string) string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = "  " + p.id(c.Name) + " " + types[c.Kind]
	}
	return strings.Join(out, ",\n")
}

var trinoTypes = map[string]string{"string": "varchar", "timestamp": "timestamp(6)", "money": "decimal(18,2)",
	"quantity": "decimal(18,4)", "integer": "integer", "bigint": "bigint", "boolean": "boolean", "number": "double"}

var sparkTypes = map[string]string{"string": "STRING", "timestamp": "TIMESTAMP", "money": "DECIMAL(18,2)",
	"quantity": "DECIMAL(18,4)", "integer": "INT", "bigint": "BIGINT", "boolean": "BOOLEAN", "number": "DOUBLE"}

var athenaTypes = map[string]string{"string": "string", "timestamp": "timestamp", "money": "decimal(18,2)",
	"quantity": "decimal(18,4)", "integer": "int", "bigint": "bigint", "boolean": "boolean", "number": "double"}

// sparkURL is a URL as Spark's Hadoop file systems name it (s3a://).
func sparkURL(u string) string {
	if rest, ok := strings.CutPrefix(u, "s3://"); ok {
		return "s3a://" + rest
	}
	return u
}

// duckdbPath is a lake URL as DuckDB reads it: a local path for file://.
func duckdbPath(u string) string {
	if rest, ok := strings.CutPrefix(u, "file://"); ok {
		return rest
	}
	return u
}
