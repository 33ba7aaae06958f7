package job

import (
	"context"
	"errors"
	"log/slog"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/snapshot"
)

// LakePublisher levels the lake of cfg's parquet.url with store after an
// export. A program's main chooses it and sets it on Service.Lake:
// billsnap runs the lake's program (cmd/internal/lakeprogram), and
// billsnap-lake publishes in-process (cmd/internal/lakepublish), so that
// only the programs that publish link the object storage SDKs and Iceberg.
type LakePublisher func(ctx context.Context, cfg config.Config, store *snapshot.Store, log *slog.Logger) error

// errNoLake is parquet.url set in a program that publishes to no lake.
var errNoLake = errors.New("parquet.url is set, and this program publishes to no lake (its Service has no Lake)")

// publishLake levels the lake with store through svc.Lake.
func (svc Service) publishLake(ctx context.Context, cfg config.Config, store *snapshot.Store) error {
	if svc.Lake == nil {
		return errNoLake
	}
	return svc.Lake(ctx, cfg, store, svc.Log)
}
