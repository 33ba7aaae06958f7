package cli

import (
	"errors"
	"flag"
	"fmt"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/usage"
)

// serviceFlags are the flags of the commands that talk to the service
// (export, run, schedule, check-config): the store flags and those of the
// service and the walk. A flag given on the command line beats the
// environment and the file.
type serviceFlags struct {
	*storeFlags                       // --config, --out
	baseURL, frontURL                 string
	keyFile, progress, parquetURL     string
	concurrency, prefetch, maxRewalks int
	insecure                          bool
}

func addServiceFlags(fs *cliFlags) *serviceFlags {
	f := &serviceFlags{storeFlags: addStoreFlags(fs)}
	fs.group("Service flags", func() {
		fs.StringVar(&f.baseURL, "base-url", "", "{base_url} of the service (env "+config.EnvBaseURL+")")
		fs.StringVar(&f.frontURL, "front-url", "", "{front_url} of the paged lists (env "+config.EnvFrontURL+")")
		fs.StringVar(&f.keyFile, "api-key-file", "", "file holding the API key (else env "+config.EnvAPIKey+")")
		fs.StringVar(&f.progress, "progress", "", "progress on stderr: auto, bar, log or none")
		fs.IntVar(&f.concurrency, "concurrency", 0, "requests in flight, all collections together (default 8)")
		fs.IntVar(&f.prefetch, "prefetch", 0, "pages fetched ahead per collection (default 8)")
		fs.IntVar(&f.maxRewalks, "max-rewalks", 0, "re-walks of a collection that drifted (default 2)")
		fs.BoolVar(&f.insecure, "allow-insecure-http", false, "allow plain http to a host that is not loopback")
		fs.StringVar(&f.parquetURL, "parquet-url", "", "{parquet.url}: object storage each complete snapshot is published to as well")
	})
	return f
}

// load returns the configuration: defaults, file, environment, the flags
// that were given, prepared as for a command that talks to the service
// (its URLs are required). Any problem is a usage error (exit 2).
func (f *serviceFlags) load(env *cliEnv) (config.Config, error) {
	env.learnSecret(f.keyFile)
	c, err := env.loadConfig(f.file)
	if err != nil {
		return c, usage.Wrap(err)
	}
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "base-url":
			c.BaseURL = f.baseURL
		case "front-url":
			c.FrontURL = f.frontURL
		case "out":
			c.Out = f.out
		case "progress":
			c.Progress = f.progress
		case "concurrency":
			c.Concurrency = f.concurrency
		case "prefetch":
			c.Prefetch = f.prefetch
		case "max-rewalks":
			c.MaxRewalks = f.maxRewalks
		case "allow-insecure-http":
			c.AllowInsecureHTTP = f.insecure
		case "parquet-url":
			c.Parquet.URL, _ = config.AbsoluteLake(f.parquetURL, "") // relative to the working directory; Check refuses one left relative
		}
	})
	if err := f.checkOut(c.Out, true); err != nil {
		return c, err
	}
	return c, prepare(c, true, env.lake)
}

// prepare validates c as every command does: the keys, the collection
// paths and the field mapping; service says the command talks to the
// service, so its URLs are required, and its lake lk must be reachable
// when parquet.url is set. Any problem is a usage error.
func prepare(c config.Config, service bool, lk Lake) error {
	err := c.Validate()
	if service {
		err = errors.Join(c.RequireService(), err)
	}
	if service && c.Parquet.URL != "" {
		err = errors.Join(err, lk.Check()) // before the walk, not after it
	}
	if err != nil {
		return usage.Wrap(err)
	}
	if _, err := catalog.Collections(c.Collections); err != nil {
		return usage.Wrap(err)
	}
	if _, err := catalog.ApplyFields(c.Fields); err != nil {
		return usage.Wrap(err)
	}
	return nil
}

// secret reads the API key and makes every later output redact it.
func (f *serviceFlags) secret(env *cliEnv) (*extract.Secret, error) {
	key, err := config.APIKey(env.getenv, f.keyFile, func(msg string) { env.log.Warn(msg) })
	if err != nil {
		return nil, usage.Wrap(err)
	}
	s := extract.NewSecret(key)
	env.setSecret(s)
	from := f.describeKey(env)
	env.keySource.Store(&from)
	return s, nil
}

// describeKey says where the key came from, never what it is: the flag
// --api-key-file, the file BILLSNAP_API_KEY_FILE names, or
// BILLSNAP_API_KEY.
func (f *serviceFlags) describeKey(env *cliEnv) string {
	switch {
	case f.keyFile != "":
		return fmt.Sprintf("from --api-key-file %s", f.keyFile)
	case env.getenv(config.EnvAPIKeyFile) != "":
		return fmt.Sprintf("from %s (the file %s)", config.EnvAPIKeyFile, env.getenv(config.EnvAPIKeyFile))
	}
	return "from " + config.EnvAPIKey
}

// storeFlags are the flags every command that reads the configuration
// has: where the configuration and the store are.
type storeFlags struct {
	fs        *cliFlags
	file, out string
	// writes says the command writes in the store it reads (its run in
	// the journal, what it found): load then refuses an --out billsnap
	// may not write in, as it does for the commands that export.
	writes bool
}

func addStoreFlags(fs *cliFlags) *storeFlags {
	f := &storeFlags{fs: fs}
	fs.group("Store flags", func() {
		fs.StringVar(&f.file, "config", "", "YAML configuration file (strict: an unknown key is an error)")
		fs.StringVar(&f.out, "out", "", "the store's directory (env "+config.EnvOut+"; default billsnap-data)")
	})
	return f
}

// load returns the configuration: defaults, file, environment, --out if
// given, prepared as for a command that does not talk to the service, its
// --out usable (checkOut, for writing when f.writes). Any problem is a
// usage error (exit 2).
func (f *storeFlags) load(env *cliEnv) (config.Config, error) {
	env.learnSecret("")
	c, err := env.loadConfig(f.file)
	if err != nil {
		return c, usage.Wrap(err)
	}
	if given(f.fs, "out") {
		c.Out = f.out
	}
	if err := f.checkOut(c.Out, f.writes); err != nil {
		return c, err
	}
	return c, prepare(c, false, env.lake)
}

// requireStore is a usage error when cfg.Out holds no store, naming where
// the directory came from: a read command never creates one.
func (f *storeFlags) requireStore(cfg config.Config) error {
	if snapshot.Exists(cfg.Options) {
		return nil
	}
	from := "the configuration's out (or env " + config.EnvOut + ")"
	if given(f.fs, "out") {
		from = "--out"
	}
	return usage.Errorf("%s %s holds no billsnap store (run billsnap export into it first, or check the path)", from, cfg.Out)
}
