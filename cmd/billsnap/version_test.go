package main

import (
	"bytes"
	"context"
	"database/sql"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
)

// billsnap version names billsnap's build, the DuckDB library it runs
// (as DuckDB itself reports it), Go, and whether the lake is linked in;
// an argument is a usage error.
func TestVersion(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"version"}, &stdout, &stderr); code != job.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var duck string
	if err := db.QueryRow("SELECT version()").Scan(&duck); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	want := []string{"billsnap  (devel)", "duckdb    " + duck + " (", "go        " + runtime.Version() + " ", "lake      " + lakeLinked(context.Background())}
	if len(lines) != len(want) {
		t.Fatalf("version printed %q", stdout.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to begin %q", i+1, lines[i], w)
		}
	}
	if lake.Linked() != strings.HasPrefix(lines[3], "lake      linked in") {
		t.Errorf("lake line %q, linked: %v", lines[3], lake.Linked())
	}
	if code := run(context.Background(), []string{"version", "now"}, &stdout, &stderr); code != job.ExitUsage {
		t.Errorf("version with an argument: exit %d, want %d", code, job.ExitUsage)
	}
}

// The commit is the build's, shortened, and marked when the tree had
// changes; a build without version control says so.
func TestVersionOfABuild(t *testing.T) {
	t.Parallel()
	info := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "a76b5c08d70974a2cfd01544f7661a297ae62f35"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{info, true, "v1.2.0, commit a76b5c08d709, modified"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "(devel), commit unknown (built without version control information)"},
		{nil, false, "unknown (no build information)"},
	} {
		if got := versionOf(tc.info, tc.ok); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.info, got, tc.want)
		}
	}
}
