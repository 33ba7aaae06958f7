package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/billsnap/billsnap/cmd/internal/help"
	"github.com/billsnap/billsnap/usage"
)

// cliFlags is a subcommand's flag set. Its flags come in groups (the
// command's own, then the store, service and reconcile flags), and --help
// lists them group by group.
type cliFlags struct {
	*flag.FlagSet
	groups []flagGroup
	about  string // what the command does, printed under its usage line
}

// flagGroup is a titled run of flags, in the order they were defined.
type flagGroup struct {
	title string
	names []string
}

// newFlags makes a subcommand's flag set. The flag package itself prints
// nothing: a bad flag is one line on stderr (run prints the error), and
// the help page (help.Page: what the command does, its usage, its flags,
// its exit codes) is printed to stdout only when asked for with --help
// (env.help). Flags defined directly on it are the
// command's own.
func newFlags(env *cliEnv, name, synopsis string) *cliFlags {
	fs := &cliFlags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	env.help = func() {
		var body strings.Builder
		fmt.Fprintln(&body, strings.TrimSpace("Usage: billsnap "+name+" "+synopsis))
		if fs.about != "" {
			fmt.Fprintf(&body, "\n%s", fs.about)
		}
		fs.printGroups(&body)
		fmt.Fprint(env.stdout, help.Page(name, body.String()))
	}
	return fs
}

// group defines the flags that define adds, under title.
func (fs *cliFlags) group(title string, define func()) {
	before := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { before[f.Name] = true })
	define()
	g := flagGroup{title: title}
	fs.VisitAll(func(f *flag.Flag) {
		if !before[f.Name] {
			g.names = append(g.names, f.Name)
		}
	})
	fs.groups = append(fs.groups, g)
}

// printGroups writes the command's own flags, then each group's.
func (fs *cliFlags) printGroups(w io.Writer) {
	grouped := map[string]bool{}
	for _, g := range fs.groups {
		for _, n := range g.names {
			grouped[n] = true
		}
	}
	own := flagGroup{title: "Flags"}
	fs.VisitAll(func(f *flag.Flag) {
		if !grouped[f.Name] {
			own.names = append(own.names, f.Name)
		}
	})
	for _, g := range append([]flagGroup{own}, fs.groups...) {
		if len(g.names) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, n := range g.names {
			printFlag(w, fs.Lookup(n))
		}
	}
}

// printFlag writes one flag as the flag package does, with two dashes
// (one for a one-letter flag, as -o).
func printFlag(w io.Writer, f *flag.Flag) {
	arg, usage := flag.UnquoteUsage(f)
	line := "  --" + f.Name
	if len(f.Name) == 1 {
		line = "  -" + f.Name
	}
	if arg != "" {
		line += " " + arg
	}
	if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
		usage += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	fmt.Fprintf(w, "%s\n        %s\n", line, strings.ReplaceAll(usage, "\n", "\n        "))
}

// flagError is what a parse of fs returned: --help stays flag.ErrHelp, and
// a bad flag is a usage error that suggests the nearest flag, when one is
// near, and says how to list the flags.
func flagError(fs *cliFlags, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usage.Errorf("%v%s ('billsnap %s --help' lists its flags)", err, help.FlagSuggestion(fs.FlagSet, err), fs.Name())
}

// parseFlags parses args; a bad flag is a usage error, --help is flag.ErrHelp.
func parseFlags(fs *cliFlags, args []string) error {
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err)
	}
	if fs.NArg() > 0 {
		return usage.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// given tells whether the flag name was on the command line.
func given(fs *cliFlags, name string) bool {
	found := false
	fs.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}
