// Package laketest serves an S3-compatible object store to tests,
// in-process (gofakes3 on an in-memory backend), over real HTTP.
package laketest

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Start serves a store with the bucket "lake" until the test ends, puts
// test credentials in the environment (as the provider's chain reads
// them), and returns the parquet.url of prefix in the bucket.
func Start(t testing.TB, prefix string) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("lake"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test-access")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	return "s3://lake/" + prefix + "?endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true&disable_https=true"
}
