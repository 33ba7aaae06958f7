package job

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/billsnap/billsnap/journal"
)

// A run stopped by SIGTERM is on record as interrupted, exit 130, and
// says so in words rather than "context canceled". The signal is real:
// sent to the test's own process, caught as main catches it.
func TestASignalledRunIsRecordedAsInterrupted(t *testing.T) {
	env, _, clock := testEnv(t)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	_, err := Do(ctx, env, Spec{Name: "export"}, func(ctx context.Context, _ Opened) (Outcome, error) {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
		return Outcome{}, ctx.Err()
	})
	if code := ExitCode(ctx, err); code != ExitInterrupted {
		t.Errorf("exit %d, want %d", code, ExitInterrupted)
	}
	runs, lerr := journal.List(env.Out.Runs(), clock.Now())
	if lerr != nil || len(runs) != 1 {
		t.Fatalf("%d runs, %v", len(runs), lerr)
	}
	r := runs[0]
	if r.Status != journal.Interrupted || r.ExitCode != ExitInterrupted || r.Error != "interrupted by SIGTERM before it finished (exit 130)" {
		t.Errorf("recorded %q, exit %d: %q", r.Status, r.ExitCode, r.Error)
	}
	if strings.Contains(r.Error, "context canceled") {
		t.Errorf("the record names the context, not the signal: %q", r.Error)
	}
}

// A cause that names no signal is kept in the words.
func TestInterruptionNamesItsCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(context.Canceled)
	if got := Interruption(ctx, ctx.Err()); got != "interrupted (context canceled) before it finished (exit 130)" {
		t.Errorf("%q", got)
	}
	ctx, cancel = context.WithCancelCause(context.Background())
	cancel(errorString("interrupt signal received"))
	if got := Interruption(ctx, ctx.Err()); !strings.Contains(got, "by SIGINT") {
		t.Errorf("%q", got)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
