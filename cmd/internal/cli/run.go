package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/billsnap/billsnap/cmd/internal/help"
	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
	"github.com/billsnap/billsnap/cmd/internal/progress"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/snip"
	"github.com/billsnap/billsnap/internal/termsafe"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/usage"
)

// command is one subcommand.
type command struct {
	name, summary string
	run           func(ctx context.Context, env *cliEnv, args []string) error
}

// cliEnv is what a subcommand writes to: results to stdout, logs and
// progress to stderr.
type cliEnv struct {
	stdout, stderr io.Writer        // both take the API key out of what they write
	screen         *progress.Shared // stderr, shared by the log and a progress bar
	rawStderr      io.Writer        // for telling whether stderr is a terminal
	log            *slog.Logger
	getenv         func(string) string
	secrets        atomic.Pointer[[]*extract.Secret] // every API key read, for redaction
	keySource      atomic.Pointer[string]            // where the API key in use came from (describeKey)
	clock          extract.Clock                     // what retries and re-walks wait on
	lake           Lake                              // where exports publish with parquet.url, and lake ddl reads
	help           func()                            // prints the flags of the command being run
	// tune, when set, changes the configuration after it is loaded and
	// before the flags: the tests' seam for settings no flag gives (their
	// DuckDB on one thread). Nil in billsnap.
	tune func(*config.Config)
}

// loadConfig loads the configuration at file (none when ""), with the
// environment, and tunes it.
func (env *cliEnv) loadConfig(file string) (config.Config, error) {
	c, err := config.Load(file, env.getenv)
	if err == nil && env.tune != nil {
		env.tune(&c)
	}
	return c, err
}

func commands() []command {
	return []command{
		{"demo", "run the whole job against the in-process sandbox (no credentials)", runDemo},
		{"export", "take one complete, verified snapshot into DuckDB and Parquet", runExport},
		{"reconcile", "run the reconciliation rules over a snapshot; exit 3 when material", runReconcile},
		{"report", "reconcile and write the reports (Markdown, HTML, XLSX, CSV, JSON); exit 3 when material", runReport},
		{"run", "export, reconcile the snapshot just taken, write its reports", runRun},
		{"recheck", "read the service again for the findings about charges: confirmed, changed or gone; exit 3 when material", runRecheck},
		{"fix", "plan the writes that repair findings (fix plan), and apply a reviewed plan (fix apply)", runFix},
		{"schedule", "run the config's schedules until SIGTERM (cron); exit 0 when stopped", runSchedule},
		{"status", "show the last runs and when each schedule fires next", runStatus},
		{"check-config", "prepare what the commands would (configuration, key, rules, waivers, schedules) without running", runCheckConfig},
		{"query", "run one SQL statement on the snapshot database (read-only)", runQuery},
		{"changes", "print what changed in the records between two snapshots or times (from the store's history)", runChanges},
		{"notify", "send a test message to every notification target (notify test)", runNotify},
		{"lake", "print the statements that attach the tables on object storage to Trino, Spark, Athena or DuckDB (lake ddl)", runLake},
		{"evidence", "write the evidence pack of a closed period (a BagIt zip), or verify one (evidence verify)", runEvidence},
		{"ledger", "verify the hash chain of the store's ledger of waivers, sign-offs and closes (ledger verify)", runLedger},
		{"serve", "serve the finance workspace: review, waive and sign off findings in a browser", runServe},
		{"sandbox", "serve a faithful fake of the billing service", runSandbox},
		{"version", "print the versions of billsnap, DuckDB and Go, and of the lake's program", runVersion},
	}
}

// CommandNames are billsnap's commands, in the order its help lists them.
func CommandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// Main is the whole program, as billsnap's main runs it: it parses args,
// runs a subcommand in the process's environment and returns the exit
// code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, stdout, stderr, lookupEnv)
}

// Options are what a run of the program takes besides its arguments and
// its output: the seams of the tests that run it in-process. The zero
// value is billsnap's own, in an empty environment.
type Options struct {
	Getenv func(string) string  // the environment; an empty one when nil
	Clock  extract.Clock        // what retries and re-walks wait on; the real clock when nil
	Lake   Lake                 // where exports publish; the lake's program when nil
	Tune   func(*config.Config) // changes the configuration after it is loaded, before the flags
}

// Run is the whole program with the options o: it parses args, runs a
// subcommand and returns the exit code, as Main does.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	env := newEnv(stdout, stderr, getenv)
	if o.Clock != nil {
		env.clock = o.Clock
	}
	if o.Lake != nil {
		env.lake = o.Lake
	}
	env.tune = o.Tune
	return env.run(ctx, args)
}

func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return newEnv(stdout, stderr, getenv).run(ctx, args)
}

// newEnv makes the environment of one run of the program. Its lake is
// the lake's program, billsnap-lake.
func newEnv(stdout, stderr io.Writer, getenv func(string) string) *cliEnv {
	env := &cliEnv{rawStderr: stderr, getenv: getenv, clock: extract.RealClock{}, lake: lakeprogram.Program{}}
	// No line of stderr (errors, logs, warnings) is longer than
	// snip.Line, whatever a value from the service makes it.
	env.screen = progress.NewShared(&redactingWriter{w: &snip.Writer{W: stderr}, env: env})
	env.stdout, env.stderr = &redactingWriter{w: stdout, env: env}, env.screen
	level := slog.LevelInfo
	if getenv("BILLSNAP_LOG_LEVEL") == "debug" {
		level = slog.LevelDebug
	}
	env.log = slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level, ReplaceAttr: snipAttr}))
	return env
}

// logValue is the most a log line quotes of one value, in bytes; a
// longer one is cut to a snippet that states its length.
const logValue = 1024

// snipAttr cuts a log attribute's text (a string, or an error's message)
// to logValue bytes.
func snipAttr(_ []string, a slog.Attr) slog.Attr {
	switch v := a.Value.Any().(type) {
	case string:
		if len(v) > logValue {
			a.Value = slog.StringValue(snip.String(v, logValue))
		}
	case error:
		if msg := v.Error(); len(msg) > logValue {
			a.Value = slog.StringValue(snip.String(msg, logValue))
		}
	}
	return a
}

// run runs the subcommand args name and returns the exit code.
func (env *cliEnv) run(ctx context.Context, args []string) int {
	stdout, stderr := env.stdout, env.stderr
	args = help.Args(args)
	if len(args) == 0 {
		fmt.Fprint(stderr, commandsUsage())
		return job.ExitUsage
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, commandsUsage())
		return job.ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, env, args[1:])
			if errors.Is(err, flag.ErrHelp) && env.help != nil {
				env.help()
				return job.ExitOK
			}
			code := job.ExitCode(ctx, err)
			switch {
			case err != nil && code == job.ExitInterrupted:
				fmt.Fprintf(stderr, "billsnap %s: %s\n", c.name, job.Interruption(ctx, err))
			case err != nil:
				fmt.Fprintf(stderr, "billsnap %s: %s%s\n", c.name, termsafe.Lines(err.Error()), env.hint(err)) // an error may quote the service
			}
			return code
		}
	}
	fmt.Fprint(stderr, help.UnknownCommand(args[0], CommandNames()))
	return job.ExitUsage
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "help" }

func commandsUsage() string {
	var b strings.Builder
	b.WriteString(help.ProgramDoes + "\n\nUsage: billsnap <command> [flags]\n\nCommands:\n")
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.name))
	}
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.name, c.summary)
	}
	b.WriteString("\n'billsnap <command> --help' (or 'billsnap help <command>') shows a command's flags.\n\n" + help.ExitCodes + "\n")
	return b.String()
}

// subcommand is a subcommand's name and what runs it with its arguments.
type subcommand struct {
	name string
	run  func(ctx context.Context, env *cliEnv, args []string) error
}

// dispatch runs the subcommand of command that args name; --help prints
// its help page, page its body.
func dispatch(ctx context.Context, env *cliEnv, command, page string, args []string, subs ...subcommand) error {
	var names []string
	for _, s := range subs {
		names = append(names, s.name)
	}
	want := strings.Join(names, " or ")
	if len(args) == 0 {
		what := map[bool]string{true: "they do", false: "it does"}[len(subs) > 1]
		return usage.Errorf("want a subcommand: %s ('billsnap %s --help' says what %s)", want, command, what)
	}
	if i := slices.Index(names, args[0]); i >= 0 {
		return subs[i].run(ctx, env, args[1:])
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(env.stdout, help.Page(command, page))
		return nil
	}
	if name, ok := strings.CutPrefix(args[0], "-"); ok {
		return usage.Errorf("flag provided but not defined: -%s ('billsnap %s --help' lists its flags)", strings.TrimPrefix(name, "-"), command)
	}
	return usage.Errorf("unknown subcommand %q%s (want %s)", args[0], help.DidYouMean(args[0], names), want)
}
