package e2etest

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/sandbox"
)

// What readers of an output directory see, checked by the crash, soak
// and concurrency tests.

// ChildExport is the real binary exporting srv into dir.
func ChildExport(bin string, srv *sandbox.Server, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(bin, "export", "--out", dir, "--progress", "none")
	cmd.Env = append(os.Environ(), "BILLSNAP_API_KEY="+ExportKey, "BILLSNAP_BASE_URL="+srv.BaseURL(),
		"BILLSNAP_FRONT_URL="+srv.FrontURL(), "BILLSNAP_OUT=")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// FileHash is the SHA-256 of a file's bytes, in hex.
func FileHash(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// WithDB opens the store's DuckDB file read-only, as a reader would, and
// closes it after fn.
func WithDB(t *testing.T, dir string, fn func(*sql.DB)) {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, "billsnap.duckdb")+"?access_mode=READ_ONLY")
	if err == nil {
		err = db.Ping()
	}
	if err != nil {
		t.Fatalf("the DuckDB file does not open: %v", err)
	}
	defer db.Close()
	fn(db)
}

// CheckReaders checks what readers of dir see: latest_ tables equal to
// the answer key of the latest complete snapshot; in the read model's
// views of every snapshot, exactly the snapshots the records list as
// complete, each whole and equal to its answer key; in the Parquet tree
// only partitions of snapshots whose manifest billsnap's state has
// recorded (or that retention has just deleted from it), each equal to its
// answer key, every table of a complete one (one still publishing or
// pruned, which the next start finishes, may have only some), and
// nothing else. It returns the latest snapshot's ID.
func CheckReaders(t *testing.T, dir string, key func(id string) sandbox.AnswerKey) (latest string) {
	t.Helper()
	parts := PartitionsOf(t, filepath.Join(dir, "parquet"))
	recorded := stateStatuses(t, dir)
	WithDB(t, dir, func(db *sql.DB) {
		if err := db.QueryRow("SELECT id FROM latest_snapshot").Scan(&latest); err != nil {
			t.Fatalf("no latest snapshot: %v", err)
		}
		checkTables(t, db, key(latest), func(table string) string { return "latest_" + table })
		checkViews(t, db, key)
		checkHistory(t, db, key, latest)
		for id, tables := range parts {
			status := recorded[id]
			if status != "complete" && status != "publishing" && status != "" {
				t.Errorf("the Parquet tree shows snapshot %s, which billsnap's state records as %q", id, status)
			}
			if status == "complete" && len(tables) != len(key(id).Tables) {
				t.Errorf("the Parquet tree shows %d tables of complete snapshot %s", len(tables), id)
			}
			want := key(id)
			want.Tables = maps.Clone(want.Tables)
			maps.DeleteFunc(want.Tables, func(table string, _ sandbox.TableKey) bool { return !slices.Contains(tables, table) })
			checkTables(t, db, want, func(table string) string {
				return fmt.Sprintf("read_parquet('%s')", filepath.Join(dir, "parquet", table, "snapshot_id="+id, "*.parquet"))
			})
		}
	})
	return latest
}

// checkHistory checks that history ends at snapshot latest (a snapshot
// not published moved none of it), and that the tables as of its time
// are its rows.
func checkHistory(t *testing.T, db *sql.DB, key func(id string) sandbox.AnswerKey, latest string) {
	t.Helper()
	var last string
	var at time.Time
	if err := db.QueryRow(`SELECT snapshot_id, "at" FROM history_snapshots ORDER BY "at" DESC LIMIT 1`).Scan(&last, &at); err != nil {
		t.Fatalf("history_snapshots: %v", err)
	}
	if last != latest {
		t.Errorf("history ends at snapshot %s; the latest is %s", last, latest)
	}
	checkTables(t, db, key(latest), func(table string) string {
		return fmt.Sprintf("%s_asof('%s')", table, at.UTC().Format(time.RFC3339Nano))
	})
}

// checkViews checks that the read model's views of every snapshot show
// exactly the snapshots its records list as complete, each equal to its
// answer key.
func checkViews(t *testing.T, db *sql.DB, key func(id string) sandbox.AnswerKey) {
	t.Helper()
	rows, err := db.Query("SELECT id FROM snapshots WHERE status = 'complete' ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var complete []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		complete = append(complete, id)
	}
	rows.Close()
	for table := range key(complete[0]).Tables {
		var shown string
		if err := db.QueryRow("SELECT coalesce(string_agg(DISTINCT snapshot_id, ',' ORDER BY snapshot_id), '') FROM " + table).Scan(&shown); err != nil {
			t.Errorf("the view %s: %v", table, err)
		} else if want := withRows(complete, table, key); shown != strings.Join(want, ",") {
			t.Errorf("the view %s shows snapshots %s; want the complete ones with rows, %v", table, shown, want)
		}
	}
	for _, id := range complete {
		checkTables(t, db, key(id), func(table string) string {
			return fmt.Sprintf("(SELECT * FROM %s WHERE snapshot_id = '%s')", table, id)
		})
	}
}

// withRows are the snapshots ids whose answer key has rows of table.
func withRows(ids []string, table string, key func(id string) sandbox.AnswerKey) []string {
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return key(id).Tables[table].Count == 0 })
}

// checkTables compares the ID sets of every table, read from from(table),
// with the answer key.
func checkTables(t *testing.T, db *sql.DB, key sandbox.AnswerKey, from func(table string) string) {
	t.Helper()
	tables := slices.Sorted(maps.Keys(key.Tables))
	got, err := tableKeysOf(db, tables, from)
	for _, table := range tables {
		if err != nil { // find the relation that fails, and say its error
			_, _, err := TableKeyOf(db, from(table))
			t.Errorf("%s: %v", from(table), err)
			continue
		}
		want, k := key.Tables[table], got[table]
		if k.key != want || k.distinct != k.key.Count {
			t.Errorf("%s: %d rows (%d distinct), hash %.12s; answer key %d, %.12s", from(table), k.key.Count, k.distinct, k.key.IDsSHA256, want.Count, want.IDsSHA256)
		}
	}
}

// tableKey is TableKeyOf's figures of one relation.
type tableKey struct {
	key      sandbox.TableKey
	distinct int
}

// tableKeysOf is TableKeyOf of every table's relation from(table), in
// one statement: a reader's check queries a relation per table of each
// snapshot, twice per crash, and a statement of its own each cost more
// than its rows (the crash matrix's readers took 1 s a check).
func tableKeysOf(db *sql.DB, tables []string, from func(table string) string) (map[string]tableKey, error) {
	parts := make([]string, len(tables))
	for i, table := range tables {
		parts[i] = fmt.Sprintf("SELECT %d AS i, count(DISTINCT id), %s FROM %s", i, IDsHash, from(table))
	}
	rows, err := db.Query(strings.Join(parts, "\nUNION ALL "))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]tableKey{}
	for rows.Next() {
		var i int
		var k tableKey
		if err := rows.Scan(&i, &k.distinct, &k.key.Count, &k.key.IDsSHA256); err != nil {
			return nil, err
		}
		out[tables[i]] = k
	}
	return out, rows.Err()
}

// TableKeyOf is the answer-key figures (count, hash of the sorted IDs) of
// the rows of from, and how many distinct IDs they hold.
func TableKeyOf(db *sql.DB, from string) (k sandbox.TableKey, distinct int, err error) {
	got, err := tableKeysOf(db, []string{from}, func(rel string) string { return rel })
	return got[from].key, got[from].distinct, err
}

var partFile = regexp.MustCompile(`^[a-z_]+/snapshot_id=[0-9TZ-]+/part-\d{5}\.parquet$`)

// PartitionsOf lists the snapshots in a Parquet tree with their tables,
// and fails the test on any file that is not a part of a partition.
func PartitionsOf(t *testing.T, root string) map[string][]string {
	t.Helper()
	parts := map[string][]string{}
	err := filepath.WalkDir(root+"/", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if !partFile.MatchString(rel) {
			t.Errorf("a reader of the Parquet tree sees %s", rel)
			return nil
		}
		table, part, _ := strings.Cut(rel, "/")
		id := strings.TrimPrefix(filepath.Dir(part), "snapshot_id=")
		if ts := parts[id]; len(ts) == 0 || ts[len(ts)-1] != table {
			parts[id] = append(ts, table)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return parts
}

// CheckCleanedUp checks that a completed export left no staging, one
// generation of the Parquet tree and of the records, no publish unfinished
// and no unfinished snapshot.
func CheckCleanedUp(t *testing.T, dir string) {
	t.Helper()
	for _, left := range []string{".staging", ".billsnap/publish.pending", "billsnap.duckdb.next"} {
		if _, err := os.Stat(filepath.Join(dir, left)); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", left, err)
		}
	}
	for _, tree := range []string{".parquet-gen", ".records-gen"} {
		if gens, _ := filepath.Glob(filepath.Join(dir, tree, "*")); len(gens) != 1 {
			t.Errorf("generations of %s: %v", tree, gens)
		}
	}
	for id, status := range stateStatuses(t, dir) {
		if status == "running" || status == "publishing" {
			t.Errorf("snapshot %s is still %s", id, status)
		}
	}
}

// stateStatuses reads the snapshots' statuses from billsnap's state, as
// the next billsnap finds it (the last one is dead).
func stateStatuses(t *testing.T, dir string) map[string]string {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, ".billsnap", "state.duckdb")+"?access_mode=READ_ONLY")
	if err == nil {
		err = db.Ping()
	}
	if err != nil {
		t.Fatalf("billsnap's state does not open: %v", err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT id, status FROM snapshots")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, st string
		rows.Scan(&id, &st)
		out[id] = st
	}
	return out
}
