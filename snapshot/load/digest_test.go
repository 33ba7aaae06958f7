package load

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
)

// The digest of a table's ids, taken a range at a time, is the answer
// key's (SHA-256 of the ids sorted byte by byte, each followed by "\n"),
// with the rows, the distinct ids and the first id two rows share, however
// the ids are shaped: GUIDs, ids sharing a long prefix, short, empty and
// non-ASCII ones; and no query hands over more than about a chunk of them,
// but where a prefix too long to split holds more.
func TestIDsAreDigestedARangeAtATime(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var ids []string
	for i := range 300 {
		ids = append(ids, fmt.Sprintf("%08x-0000-4000-8000-%012x", i*2654435761%(1<<32), i))
	}
	for i := range 120 {
		ids = append(ids, fmt.Sprintf("INV-%06d", i))
	}
	ids = append(ids, "", "a", "a", "é-1", "é-2", "z", "INV-000007", "0000000000000000000000-same", "0000000000000000000000-same")
	if _, err := db.Exec("CREATE TABLE latest_t (snapshot_id VARCHAR, id VARCHAR)"); err != nil {
		t.Fatal(err)
	}
	for _, id := range append(ids, "other snapshot's") {
		snap := "s1"
		if id == "other snapshot's" {
			snap = "s0"
		}
		if _, err := db.Exec("INSERT INTO latest_t VALUES (?, ?)", snap, id); err != nil {
			t.Fatal(err)
		}
	}
	x := snapshotIDs{ctx: context.Background(), db: db, snap: "s1"}
	want := plainDigest(ids)
	for _, chunk := range []int64{1, 7, 50, 1000} {
		got, err := x.digestBy("t", chunk)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("chunk %d: %+v, want %+v", chunk, got, want)
		}
		ranges, err := x.split("t", chunk)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ranges {
			cond, args := r.where()
			var n int64
			if err := db.QueryRow("SELECT count(*) FROM latest_t WHERE snapshot_id = 's1'"+cond, args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > max(chunk, 2) { // the two ids sharing 22 characters cannot be split
				t.Errorf("chunk %d: range %q holds %d ids", chunk, r, n)
			}
		}
	}
}

// plainDigest is the digest of ids sorted in memory.
func plainDigest(ids []string) Tally {
	s := slices.Clone(ids)
	slices.Sort(s)
	h := sha256.New()
	var t Tally
	for i, id := range s {
		if i == 0 || id != s[i-1] {
			t.Distinct++
		} else if t.Twice == "" {
			t.Twice = id
		}
		t.Rows++
		h.Write([]byte(id + "\n"))
	}
	t.IDsSHA256 = hex.EncodeToString(h.Sum(nil))
	return t
}
