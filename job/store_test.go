package job

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/snapshot"
)

// A job takes the store's export lock only when its Spec declares it: a
// job that does not (a new one, say) runs beside an export holding the
// lock, and one that does is refused by it.
func TestOnlyAJobDeclaringItTakesTheExportLock(t *testing.T) {
	cfg := config.Default()
	cfg.Out, cfg.LockWait = t.TempDir(), 0
	log := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	export, err := snapshot.Open(ctx, cfg.Options, log, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer export.Close()
	for _, j := range []Spec{{Name: "undeclared"}, {Name: "declared", ExportLock: true}} {
		ran := false
		_, err := InStore(ctx, cfg, j, log, func(s string) string { return s }, nil, func(context.Context, *snapshot.Store) (Outcome, error) {
			ran = true
			return Outcome{}, nil
		})
		var busy *snapshot.BusyError
		if refused := errors.As(err, &busy); refused != j.ExportLock || ran == j.ExportLock {
			t.Errorf("%+v beside an export: ran %v, %v", j, ran, err)
		}
	}
}
