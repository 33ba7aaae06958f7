package load

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"hash"
)

// digestChunk is about the most IDs one query of digest hands over:
// duckdb-go gets a query's whole result from DuckDB before the first row,
// outside DuckDB's memory limit, so one query of every ID of a table of
// millions would hold them all in memory at once.
const digestChunk = 200_000

// maxPrefix is the longest prefix ranges split IDs by: past it, a range
// is as large as the IDs sharing the prefix make it.
const maxPrefix = 16

// Tally is what DuckDB holds of a table's IDs under the snapshot's ID.
type Tally struct {
	Rows      int64  // rows
	Distinct  int64  // distinct IDs among them
	Twice     string // the first ID (in sort order) found in two rows, or ""
	IDsSHA256 string // SHA-256 of the sorted IDs, each followed by "\n"
}

// snapshotIDs are the ids snapshot snap holds in the latest_ tables of db,
// its DuckDB file.
type snapshotIDs struct {
	ctx  context.Context
	db   *sql.DB
	snap string
}

// digest counts the rows and distinct ids the snapshot holds in table,
// finds an id that two rows share, and hashes the ids the way the answer
// key does: SHA-256 of the sorted ids, each followed by "\n". DuckDB sorts
// (spilling to disk past its memory limit), one range of ids at a time
// (ranges), and the ids go through the hash in order, so memory stays
// flat however large the table. IDs are compared as sent, byte by byte,
// as DuckDB sorts them.
func (x snapshotIDs) digest(table string) (Tally, error) { return x.digestBy(table, digestChunk) }

// digestBy is digest, about chunk ids a query.
func (x snapshotIDs) digestBy(table string, chunk int64) (Tally, error) {
	ranges, err := x.split(table, chunk)
	if err != nil {
		return Tally{}, err
	}
	d := &idDigest{h: sha256.New()}
	for _, r := range ranges {
		if err := x.digestRange(table, r, d); err != nil {
			return Tally{}, err
		}
	}
	d.t.IDsSHA256 = hex.EncodeToString(d.h.Sum(nil))
	return d.t, nil
}

// split is the ranges digest reads table's ids in: one when the snapshot
// holds at most chunk rows of it (a count, cheaper than grouping the ids
// by prefix), else ranges'.
func (x snapshotIDs) split(table string, chunk int64) ([]idRange, error) {
	var rows int64
	q := fmt.Sprintf("SELECT count(*) FROM latest_%s WHERE snapshot_id = ?", table)
	if err := x.db.QueryRowContext(x.ctx, q, x.snap).Scan(&rows); err != nil {
		return nil, err
	}
	if rows <= chunk {
		return []idRange{{}}, nil
	}
	return x.ranges(table, idRange{}, 2, chunk)
}

// idRange is the ids from lo (included) to hi (excluded; "" for no end).
type idRange struct{ lo, hi string }

// where is the range as SQL conditions on id, and their arguments.
func (r idRange) where() (string, []any) {
	q, args := " AND id >= ?", []any{r.lo}
	if r.hi != "" {
		q, args = q+" AND id < ?", append(args, r.hi)
	}
	return q, args
}

// ranges splits the ids of table in r into ranges in order of about chunk
// ids at most: by their first n characters, and a group of one prefix
// larger than that by longer prefixes in turn. The ids that share a prefix
// p sort together, from p up to the next prefix.
func (x snapshotIDs) ranges(table string, r idRange, n int, chunk int64) ([]idRange, error) {
	lo, hi := r.lo, r.hi
	cond, args := r.where()
	q := fmt.Sprintf("SELECT substr(id, 1, %d) AS p, count(*) FROM latest_%s WHERE snapshot_id = ?%s GROUP BY p ORDER BY p", n, table, cond)
	groups, err := x.prefixes(q, append([]any{x.snap}, args...)...)
	if err != nil {
		return nil, err
	}
	var out []idRange
	start, rows := lo, int64(0)
	for i, g := range groups {
		end := hi
		if i+1 < len(groups) {
			end = groups[i+1].prefix
		}
		if g.rows > chunk && n < maxPrefix {
			if rows > 0 {
				out, rows = append(out, idRange{start, g.prefix}), 0
			}
			sub, err := x.ranges(table, idRange{g.prefix, end}, n*2, chunk)
			if err != nil {
				return nil, err
			}
			out, start = append(out, sub...), end
			continue
		}
		if rows > 0 && rows+g.rows > chunk {
			out, start, rows = append(out, idRange{start, g.prefix}), g.prefix, 0
		}
		rows += g.rows
	}
	if rows > 0 || len(out) == 0 {
		out = append(out, idRange{start, hi})
	}
	return out, nil
}

// prefixGroup is how many ids start with prefix.
type prefixGroup struct {
	prefix string
	rows   int64
}

func (x snapshotIDs) prefixes(q string, args ...any) ([]prefixGroup, error) {
	rs, err := x.db.QueryContext(x.ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []prefixGroup
	for rs.Next() {
		var g prefixGroup
		if err := rs.Scan(&g.prefix, &g.rows); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rs.Err()
}

// idDigest is a digest of sorted ids being made.
type idDigest struct {
	t    Tally
	h    hash.Hash
	prev []byte
}

// digestRange puts the ids of range r, sorted, into d.
func (x snapshotIDs) digestRange(table string, r idRange, d *idDigest) error {
	cond, args := r.where()
	q := fmt.Sprintf("SELECT id FROM latest_%s WHERE snapshot_id = ?%s ORDER BY id", table, cond)
	rs, err := x.db.QueryContext(x.ctx, q, append([]any{x.snap}, args...)...)
	if err != nil {
		return err
	}
	defer rs.Close()
	var id sql.RawBytes
	for rs.Next() {
		if err := rs.Scan(&id); err != nil {
			return err
		}
		d.add(id)
	}
	return rs.Err()
}

// add puts the next id, in sorted order, into the digest.
func (d *idDigest) add(id []byte) {
	switch {
	case d.t.Rows == 0 || !bytes.Equal(id, d.prev):
		d.t.Distinct++
	case d.t.Twice == "":
		d.t.Twice = string(id)
	}
	d.t.Rows++
	d.h.Write(id)
	d.h.Write([]byte{'\n'})
	d.prev = append(d.prev[:0], id...)
}
