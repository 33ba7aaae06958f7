//go:build lake

// Command billsnap-lake levels a store's lake (the configuration's
// parquet.url) with the store: it publishes to object storage, and
// commits to the Iceberg catalog, every complete snapshot the store keeps
// that the lake lacks, commits the latest one's history to the history
// tables (<table>_history), and prunes what the store no longer keeps.
// billsnap export runs it after each export when parquet.url is set, so
// that only this program links the object storage SDKs, Arrow and
// iceberg-go.
//
//	billsnap-lake publish [--config FILE] [--out DIR] [--parquet-url URL]
//	billsnap-lake metadata [--config FILE] [--out DIR] [--parquet-url URL]
//	billsnap-lake probe [--config FILE] [--out DIR] [--parquet-url URL]
//	billsnap-lake version
//
// metadata prints the current metadata file of each Iceberg table, as a
// JSON object by table, for billsnap lake ddl.
//
// main builds the lake linked in (cmd/internal/lakepublish, with
// lake/iceberg's catalogs and the drivers of lake/drivers) and hands it
// down as job.Service's Lake. It reads the same configuration as billsnap
// (--config, the environment, --out, --parquet-url) and reads no API
// key.
//
// Exit codes are billsnap's: 0 ok, 1 failure, 2 usage, 130 interrupted.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/billsnap/billsnap/cmd/internal/lakepublish"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/buildinfo"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/lake/iceberg"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"

	_ "github.com/billsnap/billsnap/lake/drivers"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	lk := lakepublish.Lake{Catalogs: iceberg.Open} // the lake, linked in, with its catalogs
	code := run(ctx, lk, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program on the lake lk; it returns the exit code.
func run(ctx context.Context, lk lakepublish.Lake, args []string, stdout, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if len(args) == 1 && args[0] == "version" {
		fmt.Fprintln(stdout, version())
		return job.ExitOK
	}
	var err error
	switch {
	case len(args) > 0 && args[0] == "publish":
		err = publishStore(ctx, lk, args[1:], log)
	case len(args) > 0 && args[0] == "metadata":
		err = printMetadata(ctx, lk, args[1:], stdout)
	case len(args) > 0 && args[0] == "probe":
		err = printProbe(ctx, lk, args[1:], stdout)
	default:
		fmt.Fprintln(stderr, "usage: billsnap-lake publish|metadata|probe [--config FILE] [--out DIR] [--parquet-url URL] | billsnap-lake version")
		return job.ExitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "billsnap-lake %s: %v\n", args[0], err)
	}
	return job.ExitCode(ctx, err)
}

// publishStore levels the lake lk of the configuration args give with its
// store.
func publishStore(ctx context.Context, lk lakepublish.Lake, args []string, log *slog.Logger) error {
	cfg, err := load("publish", args)
	if err != nil {
		return err
	}
	store, err := snapshot.OpenShared(ctx, cfg.Options, log, time.Now)
	if err != nil {
		return err
	}
	defer store.Close()
	return lk.Publish(ctx, cfg, store, log)
}

// printProbe writes what the lake is now, after writing and removing a
// probe object there (check-config).
func printProbe(ctx context.Context, lk lakepublish.Lake, args []string, w io.Writer) error {
	cfg, err := load("probe", args)
	if err != nil {
		return err
	}
	found, err := lk.Probe(ctx, cfg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, found)
	return err
}

// printMetadata writes the current metadata file of each table of the
// lake's Iceberg catalog to w, as a JSON object by table.
func printMetadata(ctx context.Context, lk lakepublish.Lake, args []string, w io.Writer) error {
	cfg, err := load("metadata", args)
	if err != nil {
		return err
	}
	m, err := lk.Metadata(ctx, cfg)
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(m)
}

// load is the configuration args give: the file, the environment, then
// --out and --parquet-url.
func load(name string, args []string) (config.Config, error) {
	fs := flag.NewFlagSet("billsnap-lake "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String("config", "", "YAML configuration file")
	out := fs.String("out", "", "the store's directory")
	url := fs.String("parquet-url", "", "the lake")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return config.Config{}, usage.Wrap(errors.Join(err, argsError(fs)))
	}
	cfg, err := config.Load(*file, os.Getenv)
	if err != nil {
		return cfg, usage.Wrap(err)
	}
	if *out != "" {
		cfg.Out = *out
	}
	if *url != "" {
		cfg.Parquet.URL, _ = config.AbsoluteLake(*url, "") // relative to the working directory; Check refuses one left relative
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usage.Wrap(err)
	}
	if cfg.Parquet.URL == "" {
		return cfg, usage.Errorf("no parquet.url")
	}
	return cfg, nil
}

// argsError is the arguments left after the flags, as an error.
func argsError(fs *flag.FlagSet) error {
	if fs.NArg() == 0 {
		return nil
	}
	return fmt.Errorf("unexpected argument %q", fs.Arg(0))
}

// version is the program's version, as the build recorded it.
func version() string { return "billsnap-lake " + buildinfo.Version() }
