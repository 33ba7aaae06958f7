//go:build lake

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
// them), and returns the parquet.url of prefix in the bucket. It sets the
// environment with t.Setenv, so a test that calls it cannot run in
// parallel; one that must calls Serve.
func Start(t testing.TB, prefix string) string {
	t.Helper()
	url := Serve(t, prefix)
	for k, v := range Credentials(t.TempDir()) {
		t.Setenv(k, v)
	}
	return url
}

// Serve is Start without the environment: the test binary has set
// Credentials in its environment before its tests run (in its TestMain).
func Serve(t testing.TB, prefix string) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("lake"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return "s3://lake/" + prefix + "?endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true&disable_https=true"
}

// Credentials are the environment a store Serve serves needs: the test
// credentials, and configuration files in dir, which are never created,
// so that no file of the user's is read.
func Credentials(dir string) map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":           "test-access",
		"AWS_SECRET_ACCESS_KEY":       "test-secret",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"),
	}
}
