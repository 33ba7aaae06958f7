package job

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/snapshot"
)

// A Service with no Lake refuses parquet.url with a reason, and one whose
// main set a Lake has it run.
func TestThePublisherIsTheServicesLake(t *testing.T) {
	cfg := config.Default()
	cfg.Parquet.URL = "file:///nowhere"
	svc := Service{Log: slog.New(slog.DiscardHandler)}
	if err := svc.publishLake(context.Background(), cfg, nil); !errors.Is(err, errNoLake) {
		t.Fatalf("no lake: %v, want errNoLake", err)
	}
	var ran string
	svc.Lake = func(_ context.Context, c config.Config, _ *snapshot.Store, _ *slog.Logger) error {
		ran = c.Parquet.URL
		return nil
	}
	if err := svc.publishLake(context.Background(), cfg, nil); err != nil || ran != cfg.Parquet.URL {
		t.Fatalf("the service's lake: %v, ran for %q", err, ran)
	}
}
