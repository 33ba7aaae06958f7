package job

import (
	"context"
	"errors"
	"fmt"
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

// publishLake levels the lake with store through svc.Lake. A failure
// says, in one line, what failed, that the snapshot is kept in the store,
// and how the lake is completed: the next export publishes every complete
// snapshot the lake lacks.
func (svc Service) publishLake(ctx context.Context, cfg config.Config, store *snapshot.Store) error {
	if svc.Lake == nil {
		return errNoLake
	}
	err := svc.Lake(ctx, cfg, store, svc.Log)
	if err == nil || ctx.Err() != nil {
		return err
	}
	return &PublishError{URL: cfg.Parquet.URL, Err: err}
}

// PublishError is a lake that could not be brought level with the store
// after a complete snapshot was taken.
type PublishError struct {
	URL string // parquet.url
	Err error
}

func (e *PublishError) Error() string {
	return fmt.Sprintf("the snapshot is complete and kept in the store, but publishing it to the lake %s failed: %v; "+
		"the lake still serves the snapshots published before, and the next export (or billsnap-lake publish) publishes every complete snapshot it lacks",
		e.URL, e.Err)
}

func (e *PublishError) Unwrap() error { return e.Err }
