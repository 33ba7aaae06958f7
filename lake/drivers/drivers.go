// Package drivers registers the object storage drivers of every scheme a
// lake opens (file, s3, gs, azblob) with gocloud.dev/blob and with
// iceberg-go's file IO, and the Iceberg catalogs (sql; rest, which glue
// uses too); a program that publishes to object storage imports it for
// its side effect.
package drivers

import (
	_ "github.com/apache/iceberg-go/catalog/rest" // iceberg.catalog: rest and glue
	_ "github.com/apache/iceberg-go/io/gocloud"   // the Iceberg tables' files: s3, gs, azblob
	_ "gocloud.dev/blob/azureblob"                // azblob://
	_ "gocloud.dev/blob/fileblob"                 // file://
	_ "gocloud.dev/blob/gcsblob"                  // gs://
	_ "gocloud.dev/blob/s3blob"                   // s3://

	_ "github.com/billsnap/billsnap/lake/iceberg" // iceberg.catalog: sql, and how catalogs are opened
	_ "github.com/billsnap/billsnap/lake/publish" // what an export runs when parquet.url is set
)
