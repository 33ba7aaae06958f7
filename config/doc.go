// Package config is billsnap's one configuration: defaults, then a strict
// YAML file (an unknown key is an error that names it, and the nearest
// key), then the
// environment (BILLSNAP_*), then flags, then Validate. It composes the
// options the domain packages own (storeconfig.Options, extract.Retry,
// findings.Materiality, schedule.Schedule) and validates through theirs;
// none of them imports config.
//
// The API key is never read from the file: it comes from BILLSNAP_API_KEY or
// from a file named by --api-key-file, and it is never printed.
package config
