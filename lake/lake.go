// Package lake is what publishing complete snapshots to object storage
// (the configuration's parquet.url) means: file://, s3:// (any
// S3-compatible endpoint), gs:// and azblob://, through gocloud.dev/blob
// (package lake/objects, which opens a bucket), with the
// provider's own chain of credentials (environment, profile, instance
// role), never any from billsnap's configuration. The program registers
// the drivers of the schemes (package lake/drivers), as a program that
// uses database/sql registers its database drivers: only the programs
// that publish link the clouds' SDKs.
//
// Object stores have no rename, so a snapshot is published in an order a
// reader can trust: its data files first, under names no other attempt
// uses, in its table's data folder
// (PREFIX/<table>/data/snapshot_id=<id>/part-<token>-NNNNN.parquet, the
// local tree's Hive layout under Iceberg's default data folder, or the
// data folder of the location an Iceberg catalog gave the table); then
// one manifest object that lists them,
// PREFIX/_billsnap/manifests/<id>.json; then the pointer
// PREFIX/_billsnap/latest. A snapshot without its manifest does not
// exist, and its files are removed by the next prune; prune deletes a
// snapshot's manifest before its data.
//
// This package is what publishing is, without the code that reaches the
// lake: the [Manifest] and its files, the [Local] files to publish, the
// URL's check ([Check]), the iceberg options ([Iceberg]), the [Catalog]
// interface and how a catalog is opened (a [CatalogOpener] that a
// program's main passes down). It imports no SDK, so config and snapshot,
// which use its types, link none.
package lake

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Manifest is a published snapshot: every file of it.
type Manifest struct {
	Snapshot  string    `json:"snapshot_id"`
	Published time.Time `json:"published"`
	Files     []File    `json:"files"`
}

// File is one data object of a snapshot.
type File struct {
	Table string `json:"table"`
	// Key is the object's key under the prefix, or its URL when it is
	// outside the lake's root (in a location an Iceberg catalog gave its
	// table): FileURL is its URL either way.
	Key    string `json:"key"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Local is a snapshot's file on the local disk, to publish.
type Local struct {
	Table, Path string
	// Dir is the URL of the folder its snapshot_id= folder is published
	// in: its table's data folder; "" for DataFolder's.
	Dir string
}

// DataFolder is the data folder of table in the lake at root when no
// catalog says otherwise: ROOT/<table>/data, Iceberg's default
// (write.data.path) for the table located at ROOT/<table>.
func DataFolder(root, table string) string { return root + "/" + table + "/data" }

// FileURL is the URL of the object whose File.Key is key in the lake at
// root.
func FileURL(root, key string) string {
	if strings.Contains(key, "://") {
		return key
	}
	return root + "/" + key
}

// Schemes are the URL schemes a lake opens.
var Schemes = []string{"file", "s3", "gs", "azblob"}

// Check refuses a parquet.url that cannot be a lake: not a URL, another
// scheme, or credentials in it (they come from the provider's chain).
func Check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if !slices.Contains(Schemes, u.Scheme) {
		return fmt.Errorf("scheme %q: want one of %s", u.Scheme, strings.Join(Schemes, ", "))
	}
	if u.User != nil {
		return errors.New("holds credentials: give them to the provider's own chain (environment, profile, instance role), never in the configuration")
	}
	if u.Scheme != "file" && u.Host == "" {
		return errors.New("names no bucket: want SCHEME://BUCKET/PREFIX")
	}
	if u.Scheme == "file" && (u.Opaque != "" || (u.Host != "" && u.Host != "localhost") || !strings.HasPrefix(u.Path, "/")) {
		return errors.New("is a relative file URL: want file:///ABSOLUTE/PATH (in the configuration file, a relative one is relative to its folder)")
	}
	return nil
}

// Root is the lake at raw without its options and trailing slash: the
// URL under which a table format names its files (ROOT/KEY).
func Root(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery = ""
	return strings.TrimSuffix(u.String(), "/")
}
