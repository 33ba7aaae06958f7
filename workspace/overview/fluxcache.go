package overview

import (
	"context"
	"database/sql"
	"sync"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/reconcile"
)

// Cache keeps the flux lines the overview drew, for the read model
// they were read from and the snapshot's reconciliations as they were.
// Their figures are the snapshot's records' and those reconciliations'
// money at risk alone (the explanations, which the ledger changes, are
// not drawn); a publish opens another model (another *sql.DB) and a
// reconciliation again is another version, whose lines are read again: a
// month's overview pays the review once per change, not per view.
type Cache struct {
	mu    sync.Mutex
	db    *sql.DB
	lines map[string][]flux.Line // by snapshot, period and version
}

// cacheMax is how many reviews the cache keeps for one model.
const cacheMax = 64

// Lines are the flux lines of period over snapshot snap in db, without
// their explanations (reconcile.Flux), kept for db and version (the
// snapshot's reconciliations).
func (c *Cache) Lines(ctx context.Context, db *sql.DB, snap string, period *findings.Period, version string, rules []string, o flux.Options) ([]flux.Line, error) {
	key := snap + " " + period.String() + " " + version
	c.mu.Lock()
	if c.db == db {
		if ls, ok := c.lines[key]; ok {
			c.mu.Unlock()
			return ls, nil
		}
	}
	c.mu.Unlock()
	v, err := reconcile.Flux(ctx, db, snap, period, rules, o, nil)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.db != db || len(c.lines) >= cacheMax {
		c.db, c.lines = db, map[string][]flux.Line{}
	}
	c.lines[key] = v.Lines
	return v.Lines, nil
}
