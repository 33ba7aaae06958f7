package cli

import (
	"context"
	"log/slog"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/snapshot"
)

// Lake is where this program's lake (object storage, Iceberg) is.
// billsnap's is billsnap-lake, a program of its own
// (cmd/internal/lakeprogram), so that billsnap links none of the clouds'
// SDKs, Arrow or iceberg-go; its tests link the lake and publish
// in-process (cmd/internal/lakepublish, e2e/e2etest).
type Lake interface {
	// Publish levels the lake of cfg's parquet.url with store.
	Publish(ctx context.Context, cfg config.Config, store *snapshot.Store, log *slog.Logger) error
	// Metadata is the current metadata file of each Iceberg table.
	Metadata(ctx context.Context, cfg config.Config) (map[string]string, error)
	// Check is nil when the lake can be reached: checked before an
	// export's walk, not after it.
	Check() error
	// Probe writes a probe object to the lake of cfg and removes it, and
	// says what it found there (check-config).
	Probe(ctx context.Context, cfg config.Config) (string, error)
	// Where says where the lake is, for billsnap version.
	Where(ctx context.Context) string
}
