package job

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// Every kind of result has its exit code, wrapped or not, and the journal
// records the same code.
func TestExitCodes(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		out  Outcome
		err  error
		want int
	}{
		{"ok", context.Background(), Outcome{}, nil, ExitOK},
		{"material", context.Background(), Outcome{Material: true, Note: "x"}, nil, ExitMaterial},
		{"failure", context.Background(), Outcome{Material: true}, errors.New("disk full"), ExitFailure},
		{"usage", context.Background(), Outcome{}, usage.Errorf("--out: bad"), ExitUsage},
		{"config key", context.Background(), Outcome{}, fmt.Errorf("loading: %w", &configkey.Error{Key: "k", Msg: "m"}), ExitUsage},
		{"unknown snapshot", context.Background(), Outcome{}, &reconcile.UnknownSnapshotError{ID: "x"}, ExitUsage},
		{"statement", context.Background(), Outcome{}, &readmodel.StatementError{Err: errors.New("parser")}, ExitUsage},
		{"interrupted", cancelled, Outcome{}, context.Canceled, ExitInterrupted},
	} {
		if got := ExitCode(c.ctx, Material(c.out, c.err)); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
		if _, code := classify(c.ctx, c.out, c.err); code != c.want {
			t.Errorf("%s: the journal records exit %d, want %d", c.name, code, c.want)
		}
	}
}
