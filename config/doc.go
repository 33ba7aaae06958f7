// Package config is billsnap's one configuration: defaults, then a strict
// YAML file (an unknown key is an error that names it, and the nearest
// key), then the environment (BILLSNAP_*), then flags, then Validate. A
// [Config] composes the options the domain packages own (the store's
// storeconfig.Options, extract.Retry, findings.Materiality, the
// schedules, notify's targets, the lake's iceberg options, the workspace's
// access, the worklist, the flux review) and validates each through its
// own package; none of them imports config, and no domain package does.
//
// The packages whose options it holds read no store, so config links no
// DuckDB (docs' TestWhatOnlyReadsLinksNoDuckDB holds it).
//
// The API key is never read from the file: it comes from BILLSNAP_API_KEY
// or from a file named by --api-key-file ([APIKey]), and it is never
// printed.
package config
