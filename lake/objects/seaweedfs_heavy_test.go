//go:build lake && heavy && !race

package objects

import (
	"testing"

	"github.com/billsnap/billsnap/lake/laketest"
	"github.com/billsnap/billsnap/lake/laketest/weedtest"
)

// The object store's tests against a real S3 server, SeaweedFS's weed
// mini, as well as gofakes3: the same bodies, a second server.
func TestPublishAndReadBackOnSeaweedFS(t *testing.T) {
	for k, v := range laketest.Credentials(t.TempDir()) {
		t.Setenv(k, v)
	}
	s := weedtest.Start(t)
	t.Run("publish", func(t *testing.T) { publishAndReadBack(t, s.URL("billing/snapshots")) })
	t.Run("prune", func(t *testing.T) { prune(t, s.URL("pruned")) })
}
