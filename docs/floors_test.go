package docs

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path every package of billsnap starts with.
const module = "github.com/billsnap/billsnap/"

// floors reads the floors architecture.md gives, top down: the package
// names (or groups, "name/…") of each numbered line.
func floors(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^(\d+)\. (.+)$`)
	name := regexp.MustCompile("`([^`]+)`")
	var out [][]string
	for _, m := range line.FindAllStringSubmatch(string(b), -1) {
		if n, _ := strconv.Atoi(m[1]); n != len(out)+1 {
			t.Fatalf("architecture.md's floors: floor %s follows floor %d", m[1], len(out))
		}
		var names []string
		for _, nm := range name.FindAllStringSubmatch(m[2], -1) {
			names = append(names, nm[1])
		}
		out = append(out, names)
	}
	if len(out) < 2 {
		t.Fatal("architecture.md gives no floors (a numbered list of packages)")
	}
	return out
}

// placed says on which floor, and in which group ("" when named alone),
// architecture.md puts pkg (a path within the module); ok is false when
// on none.
func placed(fl [][]string, pkg string) (floor int, group string, ok bool) {
	for i, names := range fl {
		for _, n := range names {
			if n == pkg {
				return i + 1, "", true
			}
			if prefix, grp := strings.CutSuffix(n, "/…"); grp && strings.HasPrefix(pkg, prefix+"/") {
				return i + 1, prefix, true
			}
		}
	}
	return 0, "", false
}

// sources lists each package of the module, the lake's included (build
// tag lake), with its directory (relative to the module's root), its
// non-test Go files and what they import, read from the files themselves
// (go/build): `go list -tags lake` loads the packages the lake imports,
// and so downloads the lake's modules (1.4 GB of module directory) into a
// cache the fast tier must fill with the core's alone.
func sources(t *testing.T) map[string]*build.Package {
	t.Helper()
	ctx := build.Default
	ctx.BuildTags = append(slices.Clone(ctx.BuildTags), "lake")
	out := map[string]*build.Package{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		p, err := ctx.ImportDir(path, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		out[filepath.ToSlash(rel)] = p
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// imports lists each package of the module (the lake's included) with the
// packages of the module its non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	deps := map[string][]string{}
	for pkg, p := range sources(t) {
		deps[pkg] = nil
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				deps[pkg] = append(deps[pkg], dep)
			}
		}
	}
	return deps
}

// TestTheFloorsHold holds the code to docs/architecture.md's floors: a
// package imports only packages on a floor below its own, or of its own
// group; a package a placed package imports is placed itself (only what
// tests alone import, the test helpers, may be on no floor).
func TestTheFloorsHold(t *testing.T) {
	fl := floors(t)
	deps := imports(t)
	for pkg, imps := range deps {
		f, grp, ok := placed(fl, pkg)
		if !ok {
			continue
		}
		for _, imp := range imps {
			g, igrp, ok := placed(fl, imp)
			switch {
			case !ok:
				t.Errorf("%s (floor %d) imports %s, which architecture.md puts on no floor", pkg, f, imp)
			case grp != "" && (grp == igrp || imp == grp): // a group's own, or the package it extends
			case g <= f:
				t.Errorf("%s (floor %d) imports %s (floor %d): an import that does not point down", pkg, f, imp, g)
			}
		}
	}
}

// TestWhatOnlyReadsLinksNoDuckDB holds docs/testing.md's list of the
// packages that stand on the store's data types rather than on its engine:
// neither they nor their tests' builds link DuckDB, whose link costs every
// test binary seconds.
func TestWhatOnlyReadsLinksNoDuckDB(t *testing.T) {
	light := []string{"config", "notify", "schedule", "reports", "evidence", "worklist", "findings", "manifest"}
	for _, pkg := range light {
		if linked(t, pkg, "github.com/duckdb/duckdb-go/v2") {
			t.Errorf("%s links DuckDB (go list -deps -test ./%s)", pkg, pkg)
		}
	}
}

// TestOnlyTheStoreBuildsTheReadModel holds the read model's two rooms
// apart: snapshot/modelfile, which builds and shows the model, is
// imported by snapshot alone; every other reader goes through
// snapshot/readmodel.
func TestOnlyTheStoreBuildsTheReadModel(t *testing.T) {
	for pkg, deps := range imports(t) {
		if pkg != "snapshot" && slices.Contains(deps, "snapshot/modelfile") {
			t.Errorf("%s imports snapshot/modelfile, which only snapshot may", pkg)
		}
	}
}

// TestWhatShowsASnapshotLinksNoParquetWriter holds the readers of what a
// snapshot received (its manifest, the reports, the evidence pack) to the
// data alone: neither they nor their tests' builds link the Parquet
// writer (github.com/xitongsys/parquet-go and its sources), which only
// ingest, the walk's side of a snapshot, needs.
func TestWhatShowsASnapshotLinksNoParquetWriter(t *testing.T) {
	for _, pkg := range []string{"reports", "evidence", "manifest"} {
		if linked(t, pkg, "github.com/xitongsys/") {
			t.Errorf("%s links the Parquet writer (go list -deps -test ./%s | grep parquet-go)", pkg, pkg)
		}
	}
}

// linked tells whether pkg (a path within the module), or the build of
// its tests, links the package lib, or when lib ends in "/" any package
// below it.
func linked(t *testing.T, pkg, lib string) bool {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./"+pkg)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == lib || strings.HasSuffix(lib, "/") && strings.HasPrefix(dep, lib) {
			return true
		}
	}
	return false
}

// TestOneMeaningPerName holds the house to one exported type for each of
// the names a newcomer would otherwise read two ways.
func TestOneMeaningPerName(t *testing.T) {
	watched := map[string][]string{"Section": nil, "Store": nil, "Tree": nil}
	decl := regexp.MustCompile(`(?m)^type (Section|Store|Tree)\b`)
	for pkg, p := range sources(t) {
		for _, file := range p.GoFiles {
			b, err := os.ReadFile(filepath.Join(p.Dir, file))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
				watched[m[1]] = append(watched[m[1]], pkg+"/"+file)
			}
		}
	}
	for name, where := range watched {
		if len(where) > 1 {
			t.Errorf("%d exported types named %s: %v", len(where), name, where)
		}
	}
}
