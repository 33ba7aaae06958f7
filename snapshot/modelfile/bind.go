package modelfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// Bind makes the views cur.<table> and prev.<table> on conn show the
// snapshots cur and prev, for reconcile, from their Parquet, in the tree
// of complete snapshots or of incomplete ones. prev "" gives empty views.
// It makes prev.stored_findings and cur.stored_rechecks too
// (runrec.Files.Bind), the run records reconcile reads, and returns the
// files of prev's findings it bound. cur and prev are databases in
// memory; conn is a connection of the state (a Reading's, or a
// section's).
func (s Model) Bind(ctx context.Context, conn *sql.Conn, cur, prev string) ([]runrec.File, error) {
	for _, schema := range []struct{ name, id string }{{"cur", cur}, {"prev", prev}} {
		if _, err := conn.ExecContext(ctx, "ATTACH IF NOT EXISTS ':memory:' AS "+schema.name); err != nil {
			return nil, err
		}
		for _, t := range s.Tables {
			rel, err := s.relation(t, schema.id)
			if err != nil {
				return nil, err
			}
			q := fmt.Sprintf("CREATE OR REPLACE VIEW %s.%s AS %s", schema.name, t.Name, rel)
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return nil, fmt.Errorf("binding %s.%s to snapshot %s: %w", schema.name, t.Name, schema.id, err)
			}
		}
	}
	return s.Runs.Bind(ctx, conn, cur, prev)
}

// relation is the relation of table t's rows of snapshot id.
func (s Model) relation(t catalog.Table, id string) (string, error) {
	if id == "" {
		return fmt.Sprintf("SELECT * FROM cur.%s WHERE false", t.Name), nil
	}
	for _, tr := range s.Trees {
		dir := filepath.Join(absolute(tr.Link), t.Name, tree.Partition(id))
		if _, err := os.Stat(dir); err == nil {
			return ParquetRelation(filepath.Join(dir, "*.parquet")), nil
		}
	}
	return "", fmt.Errorf("snapshot %s: %w", id, errNoData)
}

// errNoData is a snapshot whose rows are nowhere: failed, or pruned.
var errNoData = errors.New("its rows are in neither Parquet tree (failed or pruned)")
