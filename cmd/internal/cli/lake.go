package cli

import (
	"context"
	"os"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/lake/ddl"
	"github.com/billsnap/billsnap/usage"
)

// lakeUsage is lake's own help: its subcommand.
const lakeUsage = `Usage: billsnap lake ddl --engine trino|spark|athena|duckdb [--hive] [--parquet-url URL] [store flags]

ddl    prints the statements that attach the tables published to parquet.url to a
       query engine: the Iceberg tables where the engine can read them, external
       Hive-partitioned Parquet tables otherwise, or with --hive. It reads the
       configuration and the Iceberg catalog only.

'billsnap lake ddl --help' lists its flags.
`

// runLake runs lake ddl.
func runLake(ctx context.Context, env *cliEnv, args []string) error {
	return dispatch(ctx, env, "lake", lakeUsage, args, subcommand{"ddl", runLakeDDL})
}

func runLakeDDL(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "lake ddl", "--engine trino|spark|athena|duckdb [--hive] [--parquet-url URL] [store flags]")
	sf := addStoreFlags(fs)
	engine := fs.String("engine", "", "the query engine: "+strings.Join(ddl.Engines, ", "))
	hive := fs.Bool("hive", false, "external Hive-partitioned tables, even where the engine reads Iceberg")
	lakeURL := fs.String("parquet-url", "", "{parquet.url}: the object storage the snapshots are published to")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	if given(fs, "parquet-url") {
		cfg.Parquet.URL = *lakeURL
		if err := prepare(cfg, false, env.lake); err != nil {
			return err
		}
	}
	if !slices.Contains(ddl.Engines, *engine) {
		return usage.Errorf("--engine %q: want one of %s", *engine, strings.Join(ddl.Engines, ", "))
	}
	if cfg.Parquet.URL == "" {
		return usage.Errorf("parquet.url is not set (config key parquet.url, or --parquet-url): nothing is published to object storage")
	}
	tables, err := catalog.ApplyFields(cfg.Fields)
	if err != nil {
		return usage.Wrap(err)
	}
	l := ddl.Lake{URL: cfg.Parquet.URL, Iceberg: cfg.Iceberg, Tables: ddlTables(tables), Hive: *hive}
	// A REST catalog gives its tables their locations: Hive tables need them too.
	if cfg.Iceberg.Catalog != "none" && (!*hive || cfg.Iceberg.Catalog == "rest") {
		if l.Metadata, l.SQLiteDB, err = icebergMetadata(ctx, env.lake, cfg); err != nil {
			return err
		}
	}
	if err := ddl.Write(env.stdout, *engine, l); err != nil {
		return usage.Wrap(err)
	}
	return nil
}

// icebergMetadata are the current metadata files of the Iceberg tables,
// by table, as the lake lk has them, and a sql catalog's file.
func icebergMetadata(ctx context.Context, lk Lake, cfg config.Config) (map[string]string, string, error) {
	var db string
	if cfg.Iceberg.Catalog == "sql" {
		db = cfg.Iceberg.SQLiteFile(cfg.Out)
		if _, err := os.Stat(db); err != nil {
			return nil, "", usage.Errorf("no Iceberg catalog at %s (iceberg.uri): export with parquet.url first, or print --hive tables", db)
		}
	}
	out, err := lk.Metadata(ctx, cfg)
	return out, db, err
}

// ddlTables are the store's tables as their Parquet files have them.
func ddlTables(ts []catalog.Table) []ddl.Table {
	out := make([]ddl.Table, len(ts))
	for i, t := range ts {
		kinds := map[string]string{}
		for _, c := range t.Columns {
			kinds[c.Name] = c.Kind.String()
		}
		out[i].Name = t.Name
		for _, name := range t.ColumnNames() {
			k, ok := kinds[name]
			if !ok {
				k = catalog.String.String() // id, the parent's ID, _raw
			}
			out[i].Columns = append(out[i].Columns, ddl.Column{Name: name, Kind: k})
		}
	}
	return out
}
