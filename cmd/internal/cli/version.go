package cli

import (
	"context"
	"fmt"
	"runtime"

	"github.com/billsnap/billsnap/internal/buildinfo"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
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
		return usage.Errorf("billsnap version takes no arguments, not %q", fs.Arg(0))
	}
	duck, err := readmodel.DuckDBVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "billsnap  %s\nduckdb    %s\ngo        %s %s/%s\nlake      %s\n",
		buildinfo.Version(), duck, runtime.Version(), runtime.GOOS, runtime.GOARCH, env.lake.Where(ctx))
	return nil
}
