package job

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/snapshot"
)

// A program that links no lake publisher refuses parquet.url with a
// reason, and one that registers a publisher has it run.
func TestThePublisherIsWhatTheProgramLinks(t *testing.T) {
	cfg := config.Default()
	cfg.Parquet.URL = "file:///nowhere"
	if err := publishLake(context.Background(), cfg, nil, slog.New(slog.DiscardHandler)); !errors.Is(err, errNoLake) {
		t.Fatalf("no publisher linked: %v, want errNoLake", err)
	}
	var ran string
	RegisterLake(func(_ context.Context, c config.Config, _ *snapshot.Store, _ *slog.Logger) error {
		ran = c.Parquet.URL
		return nil
	})
	t.Cleanup(func() { RegisterLake(nil) })
	if err := publishLake(context.Background(), cfg, nil, slog.New(slog.DiscardHandler)); err != nil || ran != cfg.Parquet.URL {
		t.Fatalf("the registered publisher: %v, ran for %q", err, ran)
	}
}
