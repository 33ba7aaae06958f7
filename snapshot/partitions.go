package snapshot

import (
	"fmt"
	"path/filepath"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/snapshot/tree"
)

// PartitionKey names the snapshot in the Parquet tree's Hive partitions:
// <table>/snapshot_id=<id>/ (tree's).
const PartitionKey = tree.PartitionKey

// Files are the Parquet files of complete snapshot id in the tree, by
// table in the catalogue's order, as the lake publishes them.
func (s *Store) Files(id string) ([]lake.Local, error) {
	var out []lake.Local
	for _, t := range catalog.Tables() {
		paths, err := filepath.Glob(filepath.Join(s.parquetDir, t.Name, tree.Partition(id), "*.parquet"))
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			out = append(out, lake.Local{Table: t.Name, Path: p})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("snapshot %s has no Parquet in %s", id, s.parquetDir)
	}
	return out, nil
}

// partitionDir is where readers find a table's Parquet of snapshot id.
func (s *Store) partitionDir(table, id string) string {
	return filepath.Join(s.parquetDir, table, tree.Partition(id))
}
