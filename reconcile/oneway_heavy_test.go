//go:build heavy

package reconcile

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
)

// A reconciliation reads the state and writes nothing to it: it runs to
// its end while another section of the state is open (which holds the
// state's lock), and the state file is the same after it. The store then
// keeps what it found; a reading whose previous snapshot's findings were
// stored again meanwhile is refused as stale, and read again it is kept.
func TestReconcileReadsAndTheStoreKeeps(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{Seed: 62, Customers: 40, Planted: 1})
	first := e.export()
	second := e.export()
	e.reconcile(Options{SnapshotID: first.ID})
	ctx := context.Background()
	state := layout.Dir(e.store.Dir()).State()
	rd, err := e.store.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var r *findings.Report
	var replaced bool
	err = e.store.Update(ctx, func(*snapshot.Section) error { // the state's lock is held throughout
		before, err := os.Stat(state)
		if err != nil {
			return err
		}
		if r, err = Run(ctx, rd, e.options(Options{SnapshotID: second.ID})); err != nil {
			return err
		}
		after, err := os.Stat(state)
		replaced = err != nil || !os.SameFile(before, after) || before.ModTime() != after.ModTime()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Previous != first.ID || len(r.Findings) == 0 {
		t.Fatalf("reconciled %s against %q with %d findings", r.Snapshot.ID, r.Previous, len(r.Findings))
	}
	if replaced {
		t.Fatal("the reconciliation wrote the state")
	}
	e.reconcile(Options{SnapshotID: first.ID}) // the previous snapshot's findings, stored again
	if err := e.store.Keep(ctx, rd); !errors.Is(err, snapshot.ErrStale) {
		t.Fatalf("keeping a stale reconciliation: %v, want ErrStale", err)
	}
	if got, err := e.stored(second.ID); !errors.As(err, new(*NotReconciledError)) {
		t.Fatalf("a refused reconciliation was stored: %v, %v", got, err)
	}
	again := e.reconcile(Options{SnapshotID: second.ID})
	got, err := e.stored(second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) != len(again.Findings) || len(again.Findings) != len(r.Findings) {
		t.Fatalf("kept %d findings; the reconciliation found %d, the stale one %d", len(got.Findings), len(again.Findings), len(r.Findings))
	}
}
