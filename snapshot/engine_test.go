//go:build heavy

package snapshot

import (
	"context"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A store's sections share one DuckDB instance, and each ends with
// nothing of it attached: a section that binds a snapshot after another
// publish reads the new read model's master, not the one an earlier
// section attached.
func TestSectionsShareAnInstanceAndLeaveNothingAttached(t *testing.T) {
	t.Parallel()
	small := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 10}, "")
	large := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 15}, "")
	out := t.TempDir()
	s := openStore(t, testConfig(small, out))
	defer s.Close()
	for _, tc := range []struct {
		srv  *sandbox.Server
		want int
	}{{small, 10}, {large, 15}} {
		sum, err := takeWith(t, s, testConfig(tc.srv, out))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = s.Update(context.Background(), func(sec *Section) error {
			db := sec.DB()
			conn, err := db.Conn(context.Background())
			if err != nil {
				return err
			}
			defer conn.Close()
			if _, err := s.bind(context.Background(), conn, sum.ID, ""); err != nil {
				return err
			}
			return conn.QueryRowContext(context.Background(), "SELECT count(*) FROM cur.customers").Scan(&n)
		})
		if err != nil || n != tc.want {
			t.Errorf("snapshot %s: %d customers bound (%v), want %d", sum.ID, n, err, tc.want)
		}
		attached, running, err := s.engine.Attached(context.Background())
		if !running {
			t.Fatal("the sections' instance was stopped")
		}
		if err != nil || len(attached) > 0 {
			t.Errorf("after the sections: %v attached (%v)", attached, err)
		}
	}
}
