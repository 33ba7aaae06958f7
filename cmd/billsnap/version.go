package main

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/lake/program"
	"github.com/billsnap/billsnap/snapshot"
)

// runVersion prints billsnap's version and commit, DuckDB's, Go's, and
// where the lake is (object storage and Iceberg): the program that
// publishes to it, or linked in.
func runVersion(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "version", "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return job.Usagef("billsnap version takes no arguments, not %q", fs.Arg(0))
	}
	duck, err := snapshot.DuckDBVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "billsnap  %s\nduckdb    %s\ngo        %s %s/%s\nlake      %s\n",
		billsnapVersion(), duck, runtime.Version(), runtime.GOOS, runtime.GOARCH, lakeLinked(ctx))
	return nil
}

// billsnapVersion is the module's version and the commit it was built
// from, as the build recorded them: "(devel), commit 1a2b3c4d5e6f" (and
// "modified" when the tree had changes); a build without version control
// information (go run) says so.
func billsnapVersion() string { return versionOf(debug.ReadBuildInfo()) }

// versionOf is billsnapVersion from build information info (ok: there is
// some).
func versionOf(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "unknown (no build information)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	v := info.Main.Version
	rev := settings["vcs.revision"]
	switch {
	case rev == "":
		return v + ", commit unknown (built without version control information)"
	case len(rev) > 12:
		rev = rev[:12]
	}
	if settings["vcs.modified"] == "true" {
		rev += ", modified"
	}
	return fmt.Sprintf("%s, commit %s", v, rev)
}

// lakeLinked says where this program's lake is: linked in, or the lake
// program and its version, or how to install it.
func lakeLinked(ctx context.Context) string {
	if lake.Linked() {
		return "linked in (object storage and Iceberg)"
	}
	path, err := program.Find()
	if err != nil {
		return "not installed: go install ./cmd/" + lakeProgramName
	}
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return fmt.Sprintf("%s, which does not run: %v", path, err)
	}
	return fmt.Sprintf("%s (%s)", strings.TrimSpace(string(out)), path)
}
