package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/billsnap/billsnap/config"
)

// ErrNoStore is a directory where no billsnap has published anything.
var ErrNoStore = errors.New("no billsnap store here yet: run billsnap export first")

// OpenRead opens the database readers see, read-only: what the last
// publish left. It is ErrNoStore (wrapped, naming the path) when there is
// none.
func OpenRead(ctx context.Context, cfg config.Config) (*sql.DB, error) {
	path := filepath.Join(cfg.Out, cfg.DuckDB.File)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, ErrNoStore)
	}
	db, err := sql.Open("duckdb", path+"?"+url.Values{"access_mode": {"READ_ONLY"}}.Encode())
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, fmt.Errorf("opening %s to read: %w", path, err)
	}
	return db, nil
}
