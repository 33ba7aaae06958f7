package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/sandbox"
)

// tablePrint is a table's fingerprint: how many rows it has and the
// SHA-256 of its rows, whatever their order.
type tablePrint struct {
	rows int
	sum  [sha256.Size]byte
}

// keyRaw is a row as a fingerprint sees it: a record's ID (for an item of
// a nested list, its parent's ID) and the record's JSON as the service
// sent it.
type keyRaw struct{ key, raw string }

// fingerprint sorts rows by key, then JSON, and hashes them, each key and
// JSON prefixed by its length, so that two tables print alike exactly
// when they hold the same rows as many times each.
func fingerprint(rows []keyRaw) tablePrint {
	slices.SortFunc(rows, func(a, b keyRaw) int { return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.raw, b.raw)) })
	h := sha256.New()
	for _, r := range rows {
		h.Write([]byte(strconv.Itoa(len(r.key)) + ":" + r.key + strconv.Itoa(len(r.raw)) + ":"))
		h.Write([]byte(r.raw))
	}
	return tablePrint{rows: len(rows), sum: [sha256.Size]byte(h.Sum(nil))}
}

// servedPrints fingerprints every table of the store as the sandbox
// serves it now: a list's table from its records (ID and JSON, as
// sandbox.Served gives them), and a child table from the items of its
// parents' nested lists (the parent's ID and the item's JSON, the bytes
// inside the parent's).
func servedPrints(sb *sandbox.Sandbox) (map[string]tablePrint, error) {
	out := map[string]tablePrint{}
	for _, name := range sandbox.ListNames() {
		recs, err := sb.Served(name)
		if err != nil {
			return nil, err
		}
		table := sandbox.TableOf(name)
		kids := catalog.Children(table)
		rows, items := make([]keyRaw, len(recs)), make([][]keyRaw, len(kids))
		for i, r := range recs {
			rows[i] = keyRaw{r.ID, string(r.JSON)}
			if err := nestedItems(r, kids, items); err != nil {
				return nil, fmt.Errorf("%s: %w", table, err)
			}
		}
		out[table] = fingerprint(rows)
		for k, ch := range kids {
			out[ch.Table] = fingerprint(items[k])
		}
	}
	return out, nil
}

// nestedItems appends to items[k] the items of r's nested list kids[k],
// each keyed by r's ID.
func nestedItems(r sandbox.Record, kids []catalog.Child, items [][]keyRaw) error {
	if len(kids) == 0 {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(r.JSON, &fields); err != nil {
		return fmt.Errorf("record %s: %w", r.ID, err)
	}
	for k, ch := range kids {
		var list []json.RawMessage
		if raw, ok := fields[ch.Field]; ok {
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf("record %s, %s: %w", r.ID, ch.Field, err)
			}
		}
		for _, it := range list {
			items[k] = append(items[k], keyRaw{r.ID, string(it)})
		}
	}
	return nil
}

// storePrints fingerprints every table of the store as the read model db
// gives it from the relation rel(table): a list's table by (id, _raw), a
// child table by (its parent's ID column, _raw), _raw read as text.
// DuckDB gives _raw back as the bytes it was given (the service's own).
func storePrints(ctx context.Context, db *sql.DB, rel func(table string) string) (map[string]tablePrint, error) {
	out := map[string]tablePrint{}
	for _, t := range catalog.Tables() {
		key := cmp.Or(t.ParentColumn, "id")
		rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT %s, _raw::VARCHAR FROM %s", key, rel(t.Name)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		var got []keyRaw
		for rows.Next() {
			var r keyRaw
			if err := rows.Scan(&r.key, &r.raw); err != nil {
				rows.Close()
				return nil, fmt.Errorf("%s: %w", t.Name, err)
			}
			got = append(got, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		out[t.Name] = fingerprint(got)
	}
	return out, nil
}

// printsDiffer names the tables whose fingerprints differ between want
// and got, with their rows; none when every table of want is alike in
// got.
func printsDiffer(want, got map[string]tablePrint) []string {
	var out []string
	for _, t := range slices.Sorted(maps.Keys(want)) {
		if want[t] != got[t] {
			out = append(out, fmt.Sprintf("%s (%d rows served, %d stored)", t, want[t].rows, got[t].rows))
		}
	}
	return out
}
