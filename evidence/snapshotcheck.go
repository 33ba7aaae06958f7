package evidence

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// parseParquetManifest reads data/snapshot/parquet-manifest.csv: its
// header, then one row per Parquet file of snapshot snap, each path
// once, relative and clean, in a snapshot_id=snap directory.
func parseParquetManifest(data []byte, snap string) ([]parquetFile, error) {
	const what = "data/snapshot/parquet-manifest.csv"
	lines, err := strictLines(what, data)
	if err != nil {
		return nil, err
	}
	if string(lines[0]) != "path,bytes,sha256" {
		return nil, &MismatchError{What: what, Why: "its header is not path,bytes,sha256"}
	}
	var out []parquetFile
	for n, l := range lines[1:] {
		bad := func(why string) ([]parquetFile, error) {
			return nil, &MismatchError{What: fmt.Sprintf("%s line %d", what, n+2), Why: why}
		}
		f := strings.Split(string(l), ",")
		if len(f) != 3 || !isSHA256(f[2]) {
			return bad("not path,bytes,sha256")
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		switch {
		case err != nil || size < 0:
			return bad(fmt.Sprintf("bytes %q is not a size", f[1]))
		case badName(f[0]) != "" || !strings.HasSuffix(f[0], ".parquet") || !slices.Contains(strings.Split(f[0], "/"), "snapshot_id="+snap):
			return bad(fmt.Sprintf("%q is not the path of a Parquet file of snapshot %s in the store: %s", f[0], snap, or(badName(f[0]), "not in a snapshot_id="+snap+" directory")))
		case slices.ContainsFunc(out, func(x parquetFile) bool { return x.path == f[0] }):
			return bad(f[0] + " listed a second time")
		}
		out = append(out, parquetFile{path: f[0], bytes: size, sum: f[2]})
	}
	return out, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// checkParquet checks the store's Parquet files of snapshot snap against
// the pack's manifest rows, both ways: a file listed and not in the
// store, or in the store and not listed (an emptied manifest), differs.
// The pack's paths are only compared, never opened: the store's files are
// found and read inside the store (parquetFiles). A snapshot the store no
// longer holds at all is a note, not a difference (retention may have
// removed it).
func checkParquet(ctx context.Context, s *Against, snap string, rows []parquetFile, v *Verified) (bool, error) {
	have, err := parquetFiles(ctx, s.Root, s.ParquetDir, snap)
	if err != nil {
		return false, err
	}
	if len(have) == 0 {
		v.Notes = append(v.Notes, "the store no longer holds the snapshot's Parquet: not checked")
		return false, nil
	}
	byPath := map[string]parquetFile{}
	for _, f := range have {
		byPath[f.path] = f
	}
	for _, r := range rows {
		f, ok := byPath[r.path]
		switch {
		case !ok:
			return false, &MismatchError{What: r.path, Why: "the pack lists it and the store has no such Parquet file of snapshot " + snap}
		case f.sum != r.sum || f.bytes != r.bytes:
			return false, &MismatchError{What: r.path, Why: fmt.Sprintf("the store's file hashes to %s (%d bytes), and the pack's manifest says %s (%d bytes)", f.sum, f.bytes, r.sum, r.bytes)}
		}
		delete(byPath, r.path)
		v.Parquet++
	}
	for _, f := range have {
		if _, ok := byPath[f.path]; ok {
			return false, &MismatchError{What: f.path, Why: fmt.Sprintf("a Parquet file of snapshot %s in the store, and data/snapshot/parquet-manifest.csv does not list it: the manifest was emptied or cut", snap)}
		}
	}
	return true, nil
}

// checkTables derives data/snapshot/tables.json again from the store's
// figures of the snapshot and compares it, and tells whether it did.
// Without the figures (no read model), or when the store no longer holds
// them, it does not.
func checkTables(ctx context.Context, s *Against, snap string, payload map[string]hashed, v *Verified) (bool, error) {
	const p = "data/snapshot/tables.json"
	got, ok := payload[p]
	if s.Figures == nil {
		return false, nil
	}
	tables, err := s.Figures(ctx, snap)
	if err != nil {
		return false, err
	}
	want, err := tablesFile(snap, tables)
	switch {
	case err != nil:
		return false, err
	case len(tables) == 0:
		v.Notes = append(v.Notes, "the store no longer holds the snapshot's figures: "+p+" not checked")
		return false, nil
	case !ok:
		return false, &MismatchError{What: p, Why: "missing from the pack, and the store holds the snapshot's figures"}
	case got.sum != sha(want):
		return false, &MismatchError{What: p, Why: fmt.Sprintf("not the snapshot's figures in the store (SHA-256 %s, and recomputed %s)", got.sum, sha(want))}
	}
	return true, nil
}
