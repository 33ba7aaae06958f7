package job

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/fakeclock"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A contract field sent as a number of 100,000 digits stops the export
// with an error that quotes its first 40 digits and states its length,
// not the value whole (before: an error of 100,172 bytes).
func TestAHugeValueIsNotEchoedWhole(t *testing.T) {
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 5, Customers: 5}, "set=SubscriptionCharges.Amount@1:"+strings.Repeat("7", 100_000))
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = srv.BaseURL(), srv.FrontURL(), t.TempDir(), "none"
	log := slog.New(slog.DiscardHandler)
	svc := Service{Secret: extract.NewSecret(sandboxtest.Key), Log: log, Clock: fakeclock.New(time.Now())}
	_, err := exportInStore(cfg, svc)
	msg, want := fmt.Sprint(err), "field Amount: "+strings.Repeat("7", 40)+"… (100000 bytes) is out of range"
	if err == nil || !strings.Contains(msg, want) || len(msg) > 400 {
		t.Fatalf("error of %d bytes: %.300s; want it to say %q", len(msg), msg, want)
	}
}
