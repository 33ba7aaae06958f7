//go:build lake

// Package lakepublish is the lake linked into a program. [Lake] levels a
// lake with its store after an export: it publishes to object storage
// (lake/objects) and commits to the Iceberg catalog every complete
// snapshot the store keeps that the lake lacks, and prunes what the store
// no longer keeps. It also reads the tables' current metadata
// ([Lake.Metadata]).
//
// billsnap-lake's main sets it as job.Service's Lake, with lake/iceberg's
// catalogs, and links the drivers of the schemes (lake/drivers); so do
// the CLI's tests (cmd/e2e/e2etest), which publish in-process. Package
// job links no object storage SDK: only a main that imports this package
// does.
package lakepublish

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/objects"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// Lake is a lake linked in: Catalogs opens its Iceberg catalogs.
type Lake struct {
	Catalogs lake.CatalogOpener
}

// Publish brings the object storage of parquet.url, and its Iceberg
// catalog, level with the store: every complete snapshot the store keeps
// that the lake has no manifest of is published (the one just taken, or
// one a run cut short left unpublished) and committed to the catalog, the
// history of the latest one committed to the catalog's history tables
// (publishHistory), and what the store no longer keeps is pruned.
func (k Lake) Publish(ctx context.Context, cfg config.Config, store *snapshot.Store, log *slog.Logger) error {
	l, err := objects.Open(ctx, cfg.Parquet.URL, time.Now)
	if err != nil {
		return err
	}
	defer l.Close()
	cat, err := lake.OpenCatalog(ctx, k.Catalogs, cfg.Iceberg, cfg.Parquet.URL, cfg.Out)
	if err != nil {
		return err
	}
	if cat != nil {
		defer cat.Close()
	}
	keep, err := completeSnapshots(ctx, cfg)
	if err != nil {
		return err
	}
	ms, err := l.Manifests(ctx)
	if err != nil {
		return err
	}
	for _, id := range keep {
		if err := publishOne(ctx, l, cat, store, ms, id, log); err != nil {
			return err
		}
	}
	if cat != nil && len(keep) > 0 {
		if err := publishHistory(ctx, l, cat, store, cfg, keep[len(keep)-1], log); err != nil {
			return err
		}
	}
	removed, err := l.Prune(ctx, keep, cat)
	if len(removed) > 0 {
		log.Info("object storage: removed the snapshots the store no longer keeps", "snapshots", removed)
	}
	return err
}

// Metadata is the current metadata file of each Iceberg table of cfg's
// lake, by table; nil when iceberg.catalog is none.
func (k Lake) Metadata(ctx context.Context, cfg config.Config) (map[string]string, error) {
	return lake.TableMetadata(ctx, k.Catalogs, cfg.Iceberg, cfg.Parquet.URL, cfg.Out)
}

// Probe says what the lake of cfg is now: reachable and writable (a
// probe object written and removed), and what is published there; an
// error says what failed.
func (k Lake) Probe(ctx context.Context, cfg config.Config) (string, error) {
	l, err := objects.Open(ctx, cfg.Parquet.URL, time.Now)
	if err != nil {
		return "", err
	}
	defer l.Close()
	if err := l.Probe(ctx); err != nil {
		return "", err
	}
	ms, err := l.Manifests(ctx)
	if err != nil {
		return "", err
	}
	latest, err := l.Latest(ctx)
	if err != nil {
		return "", err
	}
	found := "reachable and writable (a probe object written and removed), no snapshot published yet"
	if len(ms) > 0 {
		found = fmt.Sprintf("reachable and writable (a probe object written and removed), %d snapshots published, the latest %s", len(ms), latest)
	}
	cat, err := lake.ProbeCatalog(ctx, k.Catalogs, cfg.Iceberg, cfg.Parquet.URL, cfg.Out)
	if cat != "" {
		found += "; " + cat
	}
	return found, err
}

// Check is nil: a linked lake needs no program.
func (Lake) Check() error { return nil }

// Where says where the lake is, for a program's version.
func (Lake) Where(context.Context) string { return "linked in (object storage and Iceberg)" }

// publishOne publishes snapshot id unless one of ms is its manifest, then
// commits it to the catalog (which leaves a table that holds it as it is).
func publishOne(ctx context.Context, l *objects.Lake, cat lake.Catalog, store *snapshot.Store, ms []lake.Manifest, id string, log *slog.Logger) error {
	local, err := store.Files(id)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(ms, func(m lake.Manifest) bool { return m.Snapshot == id })
	var m lake.Manifest
	if i >= 0 {
		m = ms[i]
	} else {
		if err := placeData(ctx, cat, local); err != nil {
			return fmt.Errorf("writing snapshot %s to object storage: %w", id, err)
		}
		start := time.Now()
		if m, err = l.Publish(ctx, id, local); err != nil {
			return fmt.Errorf("writing snapshot %s to object storage: %w (what it wrote has no manifest: readers ignore it, and the next prune removes it)", id, err)
		}
		log.Info("published to object storage", "snapshot", id, "url", l.URL(), "files", len(m.Files), "seconds", time.Since(start).Seconds())
	}
	if cat == nil {
		return nil
	}
	if err := cat.Commit(ctx, m, local); err != nil {
		return fmt.Errorf("committing snapshot %s to the Iceberg catalog: %w (it is on object storage with its manifest; the tables do not hold it yet)", id, err)
	}
	return nil
}

// placeData sets where each of local goes: its table's data folder, as
// the catalog cat has or gives the table (unset without a catalog:
// ROOT/<table>/data, Iceberg's default).
func placeData(ctx context.Context, cat lake.Catalog, local []lake.Local) error {
	if cat == nil {
		return nil
	}
	dirs := map[string]string{}
	for i, f := range local {
		if dirs[f.Table] == "" {
			dir, err := cat.DataPath(ctx, f.Table, f.Path)
			if err != nil {
				return err
			}
			dirs[f.Table] = dir
		}
		local[i].Dir = dirs[f.Table]
	}
	return nil
}

// completeSnapshots are the complete snapshots the store keeps, oldest
// first.
func completeSnapshots(ctx context.Context, cfg config.Config) ([]string, error) {
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return readmodel.CompleteIDs(ctx, db)
}
