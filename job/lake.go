package job

import (
	"context"
	"errors"
	"log/slog"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/snapshot"
)

// LakePublisher levels the lake of cfg's parquet.url with store after an
// export (package lake/publish).
type LakePublisher func(ctx context.Context, cfg config.Config, store *snapshot.Store, log *slog.Logger) error

// lakePublisher is set by RegisterLake, from an init function.
var lakePublisher LakePublisher

// RegisterLake sets what publishes to the lake after an export. It is
// called from an init function (package lake/publish registers itself,
// and a program that publishes links it through lake/drivers), so that
// only such a program links the object storage SDKs and Iceberg.
func RegisterLake(p LakePublisher) { lakePublisher = p }

// errNoLake is parquet.url set in a program that publishes to no lake.
var errNoLake = errors.New("parquet.url is set, and this program publishes to no lake (it links no lake/drivers)")

// publishLake levels the lake with store, through the registered
// publisher.
func publishLake(ctx context.Context, cfg config.Config, store *snapshot.Store, log *slog.Logger) error {
	if lakePublisher == nil {
		return errNoLake
	}
	return lakePublisher(ctx, cfg, store, log)
}

// LakeRegistered tells whether a lake publisher is registered.
func LakeRegistered() bool { return lakePublisher != nil }
