//go:build lake

// Package drivers registers the object storage drivers of every scheme a
// lake opens (file, s3, gs, azblob) with gocloud.dev/blob and with
// iceberg-go's file IO, and iceberg-go's rest catalog (which glue uses
// too), as a program that uses database/sql links its database drivers:
// a program that publishes to object storage imports it for its side
// effect, and passes its lake (cmd/internal/lakepublish, with
// lake/iceberg's catalogs) down from its main.
package drivers

import (
	_ "github.com/apache/iceberg-go/catalog/rest" // iceberg.catalog: rest and glue
	_ "github.com/apache/iceberg-go/io/gocloud"   // the Iceberg tables' files: s3, gs, azblob
	_ "gocloud.dev/blob/azureblob"                // azblob://
	_ "gocloud.dev/blob/fileblob"                 // file://
	_ "gocloud.dev/blob/gcsblob"                  // gs://
	_ "gocloud.dev/blob/s3blob"                   // s3://
)
