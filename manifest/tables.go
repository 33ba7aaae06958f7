package manifest

// TableStats are one table's figures in a snapshot.
type TableStats struct {
	Table       string
	Collection  string // the walked collection (the parent table of a child)
	Walks       int
	Pages       int
	Received    int64 // records (rows, for a child table) received, duplicates included
	Distinct    int64 // distinct IDs
	TotalCount  int64 // the service's TotalCount; -1 for a child table
	ParquetRows int64
	DuckDBRows  int64
	IDsSHA256   string // SHA-256 of the sorted IDs, each followed by "\n"
	Seconds     float64
	Complete    bool
	Problem     string
}
