package main

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	"github.com/billsnap/billsnap/internal/buildinfo"
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
		buildinfo.Version(), duck, runtime.Version(), runtime.GOOS, runtime.GOARCH, lakeLinked(ctx))
	return nil
}

// lakeLinked says where this program's lake is: linked in, or the lake
// program and its version, or how to install it.
func lakeLinked(ctx context.Context) string {
	if lake.Linked() {
		return "linked in (object storage and Iceberg)"
	}
	path, err := program.Find()
	if err != nil {
		return "not installed: go install ./cmd/" + program.Name
	}
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return fmt.Sprintf("%s, which does not run: %v", path, err)
	}
	return fmt.Sprintf("%s (%s)", strings.TrimSpace(string(out)), path)
}
