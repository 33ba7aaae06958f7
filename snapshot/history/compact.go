package history

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/internal/fileutil"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Packing. A step's closed versions and changes are a small file each,
// a few hundred rows of a table a day, and a year of them is thousands of
// files that compress badly and that every read of history opens. So the
// files of a table's steps are merged into packs, a file of many steps
// each, as a counter carries: a run is a step's own files or a pack;
// whenever PackFanIn adjacent runs of the same size class (PackFanIn^k
// steps) follow one another, they are merged into one run of the next
// class. A row is rewritten once a class, so about log4 of the steps
// kept times over a year, and a merge costs what it merges.
//
// The state says which file holds a step: history_steps.pack, NULL while
// the step has its own files. A pack is written whole (beside, synced,
// renamed) under a name no step has, before the section that lists it
// commits, so no reader sees it before the records that list it; the
// files it replaces are removed once those records are shown (Dead), so
// a reader sees the step's own files or the pack, never both nor
// neither. Views keep only the rows of the steps the state lists, by
// the file (Keep), so retention (Forget) needs no rewrite.

// PackFanIn is how many runs of one size class a merge takes.
const PackFanIn = 4

// packPrefix starts the name of every pack, which no snapshot's has.
const packPrefix = "pack-"

// run is one file's worth of a table's steps: a step's own files (pack
// "") or a pack, and the steps it holds, oldest first.
type run struct {
	pack  string
	steps []string
}

// name is the name of the run's files (without .parquet).
func (r run) name() string {
	if r.pack == "" {
		return r.steps[0]
	}
	return r.pack
}

// class is the run's size class: k for PackFanIn^k steps and more, up
// to the next power.
func (r run) class() int {
	k := 0
	for n := len(r.steps); n >= PackFanIn; n /= PackFanIn {
		k++
	}
	return k
}

// Merge is one pack to write: table's runs merged into the pack Name,
// which holds Steps.
type Merge struct {
	Table string
	Name  string
	Steps []string
	from  []run
}

// Plan lists the merges the steps that the state q records call for,
// table by table: each run of the outcome that merges runs that are
// files now, written once however many classes its merge climbed.
func Plan(ctx context.Context, q state.Querier, tables []catalog.Table) ([]Merge, error) {
	runs, err := runsOf(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []Merge
	for _, t := range tables {
		out = append(out, plan(t.Name, runs[t.Name])...)
	}
	return out, nil
}

// runsOf are each table's runs, oldest first, as the state q records
// them, by table.
func runsOf(ctx context.Context, q state.Querier) (map[string][]run, error) {
	rows, err := q.QueryContext(ctx, `SELECT table_name, snapshot, coalesce(pack, '') FROM history_steps ORDER BY table_name, "at", snapshot`)
	if err != nil {
		return nil, fmt.Errorf("history: the steps: %w", err)
	}
	defer rows.Close()
	out := map[string][]run{}
	for rows.Next() {
		var table, snap, pack string
		if err := rows.Scan(&table, &snap, &pack); err != nil {
			return nil, err
		}
		runs := out[table]
		if n := len(runs); pack != "" && n > 0 && runs[n-1].pack == pack {
			runs[n-1].steps = append(runs[n-1].steps, snap)
			continue
		}
		out[table] = append(runs, run{pack: pack, steps: []string{snap}})
	}
	return out, rows.Err()
}

// plan merges, oldest first, PackFanIn adjacent runs of one class into
// one, until no such runs are left, and returns the runs of the outcome
// that are merges, each with the runs of now it takes.
func plan(table string, runs []run) []Merge {
	cur := make([]planned, len(runs))
	for i, r := range runs {
		cur[i] = planned{run: r}
	}
	for merged := true; merged; {
		merged = false
		for i := 0; i+PackFanIn <= len(cur); i++ {
			group := cur[i : i+PackFanIn]
			if !sameClass(group) {
				continue
			}
			var m planned
			for _, p := range group {
				m.steps = append(m.steps, p.steps...)
				if p.from == nil {
					m.from = append(m.from, p.run)
				} else {
					m.from = append(m.from, p.from...)
				}
			}
			m.pack = packPrefix + m.steps[0] + "--" + m.steps[len(m.steps)-1]
			cur = append(cur[:i], append([]planned{m}, cur[i+PackFanIn:]...)...)
			merged = true
			break
		}
	}
	var out []Merge
	for _, p := range cur {
		if p.from != nil {
			out = append(out, Merge{Table: table, Name: p.pack, Steps: p.steps, from: p.from})
		}
	}
	return out
}

// planned is a run of a plan's outcome.
type planned struct {
	run
	from []run // the runs of now it merges; none when it is one of them
}

// sameClass tells whether the runs are all of one size class.
func sameClass(group []planned) bool {
	for _, p := range group[1:] {
		if p.class() != group[0].class() {
			return false
		}
	}
	return true
}

// packed are the kinds of files that packs merge, and the column that
// names a row's step in each: a closed version's end, a change's step.
var packed = []struct{ kind, step, order string }{
	{Versions, "snapshot_to", "id, valid_from"},
	{Changes, "to_snapshot", `id, "at"`},
}

// Pack writes merge m's files under root: of each kind, the rows of m's
// steps that the files of the runs it merges hold, sorted by record, in
// a file written beside, synced and renamed (none when they hold no
// row). conn is the state's, in the section that lists the pack
// (Packed). It returns the files it wrote.
func Pack(ctx context.Context, conn *sql.Conn, root string, m Merge) ([]string, error) {
	var written []string
	for _, k := range packed {
		var sources []string
		for _, r := range m.from {
			if f := File(root, k.kind, m.Table, r.name()); exists(f) {
				sources = append(sources, f)
			}
		}
		if len(sources) == 0 {
			continue
		}
		path := File(root, k.kind, m.Table, m.Name)
		q := fmt.Sprintf(`SELECT * FROM read_parquet(%s, union_by_name = true, hive_partitioning = false) WHERE list_contains(%s, %s) ORDER BY %s`,
			state.SQLList(sources), state.SQLList(m.Steps)+"::VARCHAR[]", k.step, k.order)
		if err := writeBeside(ctx, conn, q, path); err != nil {
			return nil, fmt.Errorf("history: packing %s of %s: %w", k.kind, m.Table, err)
		}
		written = append(written, path)
	}
	return written, nil
}

// writeBeside writes query's rows to path, through a file beside it
// (which no view's glob matches), synced, then renamed.
func writeBeside(ctx context.Context, conn *sql.Conn, query, path string) error {
	tmp := path + ".next"
	os.Remove(tmp)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL %d)",
		query, state.SQLString(tmp), packLevel)); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := fileutil.SyncFile(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// packLevel is zstd's level for packs: written once a class, read often,
// they are worth some CPU. Level 9 makes them 10–14% smaller than the
// default level, 3, at 2–3 times its CPU; level 15 saves 3–5% more at
// 7 times level 9's CPU (docs/notes/store-growth.md).
const packLevel = 9

// Packed records in the state q that merge m's steps are in its pack.
func Packed(ctx context.Context, q state.Querier, m Merge) error {
	_, err := q.ExecContext(ctx, "UPDATE history_steps SET pack = ? WHERE table_name = ? AND list_contains(?::VARCHAR[], snapshot)",
		m.Name, m.Table, m.Steps)
	if err != nil {
		return fmt.Errorf("history: recording the pack %s of %s: %w", m.Name, m.Table, err)
	}
	return nil
}

// Dead are the files under root that no view reads once the records of
// the state q are shown, to be removed then: of each table, the own files
// of a step in a pack, and a pack no step is in (its steps forgotten, or
// written by a section that did not commit). A file named for a step the
// state does not record (a run's, before its publish) is not one of them.
// (The indexes are RetireIndexes'.)
func Dead(ctx context.Context, q state.Querier, root string, tables []catalog.Table) ([]string, error) {
	all, err := runsOf(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range tables {
		live := map[string]bool{} // files the views read
		packedStep := map[string]bool{}
		for _, r := range all[t.Name] {
			live[r.name()] = true
			if r.pack != "" {
				for _, s := range r.steps {
					packedStep[s] = true
				}
			}
		}
		for _, k := range packed {
			out = append(out, deadIn(filepath.Join(root, k.kind, t.Name), func(name string) bool {
				return !live[name] && (packedStep[name] || strings.HasPrefix(name, packPrefix))
			})...)
		}
	}
	return out, nil
}

// deadIn are the files of dir, its empty file aside, whose names
// (without .parquet) dead tells.
func deadIn(dir string, dead func(name string) bool) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".parquet")
		if ok && e.Name() != EmptyFile && dead(name) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
