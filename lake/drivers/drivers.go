// Package drivers registers the object storage drivers of every scheme a
// lake opens (file, s3, gs, azblob) with gocloud.dev/blob; a program that
// publishes to object storage imports it for its side effect.
package drivers

import (
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/fileblob"  // file://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/s3blob"    // s3://
)
