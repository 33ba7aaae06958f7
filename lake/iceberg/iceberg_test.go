//go:build lake

package iceberg

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	_ "github.com/apache/iceberg-go/catalog/rest"

	"github.com/billsnap/billsnap/lake"
)

// The glue catalog speaks to Glue's Iceberg REST endpoint with requests
// signed with SigV4 for the service glue in the lake's region, and asks
// for the account's warehouse: a stand-in for the endpoint records what
// it is sent.
func TestGlueSignsWithSigV4(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/v1/config") {
			w.Write([]byte(`{"defaults": {}, "overrides": {}}`))
			return
		}
		w.Write([]byte(`{"namespace": ["billsnap"], "properties": {}}`))
	}))
	defer srv.Close()
	o := lake.DefaultIceberg()
	o.Catalog, o.URI, o.Warehouse = "glue", srv.URL, "123456789012"
	c, err := Open(context.Background(), o, "s3://lake/billing?region=eu-north-1", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 || !strings.Contains(seen[0], "/v1/config?warehouse=123456789012") {
		t.Fatalf("requests %q, want the config of the account's warehouse first", seen)
	}
	for _, s := range seen {
		if !strings.Contains(s, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || !strings.Contains(s, "/eu-north-1/glue/aws4_request") {
			t.Errorf("not signed for glue in eu-north-1: %s", s)
		}
	}
}

// A glue catalog needs a region, from parquet.url or the environment.
func TestGlueNeedsARegion(t *testing.T) {
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	o := lake.DefaultIceberg()
	o.Catalog, o.Warehouse = "glue", "123456789012"
	if _, err := Open(context.Background(), o, "s3://lake/billing", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no AWS region") {
		t.Fatalf("%v", err)
	}
}
