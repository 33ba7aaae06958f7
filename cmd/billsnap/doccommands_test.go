package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/job"
)

// docCommand is a billsnap command line shown in a document: where, and
// its words after "billsnap".
type docCommand struct {
	where string
	words []string
}

// shownAsMistakes are the command lines the documents show on purpose as
// what billsnap refuses.
var shownAsMistakes = map[string]bool{"exprot": true}

var (
	docInline      = regexp.MustCompile("`((?:billsnap|go run ./cmd/billsnap) [^`]*)`")
	docCommandLine = regexp.MustCompile(`^(?:\$ )?(?:billsnap|go run ./cmd/billsnap) `)
)

// docCommands are the billsnap command lines of README.md and docs/*.md:
// each line of a code block that runs billsnap (joined with its
// continuation lines), and each inline code span that does.
func docCommands(t *testing.T) []docCommand {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	var all []docCommand
	for _, f := range append([]string{"../../README.md"}, files...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		block, pending := false, ""
		for i, line := range strings.Split(string(b), "\n") {
			where := strings.TrimPrefix(f, "../../") + ":" + strconv.Itoa(i+1)
			switch {
			case strings.HasPrefix(line, "```"):
				block = !block
			case block && pending != "":
				pending += " " + strings.TrimSpace(line)
				if !strings.HasSuffix(pending, "\\") {
					all, pending = appendDocCommand(all, where, pending), ""
				}
			case block && docCommandLine.MatchString(strings.TrimSpace(line)):
				if pending = strings.TrimSpace(line); !strings.HasSuffix(pending, "\\") {
					all, pending = appendDocCommand(all, where, pending), ""
				}
			case !block:
				for _, m := range docInline.FindAllStringSubmatch(line, -1) {
					all = appendDocCommand(all, where, m[1])
				}
			}
		}
	}
	return all
}

// appendDocCommand adds the command line text to all, unless it is a
// message billsnap printed ("billsnap ledger: …") or a pattern
// ("billsnap <command>").
func appendDocCommand(all []docCommand, where, text string) []docCommand {
	text = strings.ReplaceAll(text, "\\ ", " ")
	text = strings.ReplaceAll(text, "\\", " ")
	words := shellWords(text)
	words = words[slices.Index(words, "billsnap")+1:]
	if i := slices.Index(words, "./cmd/billsnap"); i >= 0 {
		words = words[i+1:]
	}
	if len(words) == 0 || strings.HasSuffix(words[0], ":") || strings.Contains(text, "<") {
		return all
	}
	return append(all, docCommand{where: where, words: words})
}

// shellWords splits a command line as a shell would, quotes removed, up
// to its end, a comment, or what follows it (a pipe, a redirection, &&,
// ||, & or ;). Brackets, which mark what is optional, are dropped; a
// "|" inside a word (trino|spark) is a choice, not a pipe.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	flush := func() {
		if word := strings.Trim(w.String(), "[]"); in && word != "" {
			words = append(words, word)
		}
		w.Reset()
		in = false
	}
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			flush()
		case !in && strings.ContainsRune("#|>&;", r):
			flush()
			return words
		default:
			w.WriteRune(r)
			in = true
		}
	}
	flush()
	return words
}

var pageFlag = regexp.MustCompile(`(?m)^  --?([a-z0-9-]+)(?: (\S+))?$`)

// flagsOf are the flags a help page lists, with their value's kind ("" for
// a flag that takes none).
func flagsOf(page string) map[string]string {
	flags := map[string]string{}
	for _, m := range pageFlag.FindAllStringSubmatch(page, -1) {
		flags[m[1]] = m[2]
	}
	return flags
}

// asGiven turns a document's command line into arguments that parse: its
// command (and subcommand), its flags with their values, no positional
// argument, with --help last. A placeholder given a number or duration
// flag (N, D) becomes one. It says which flag the page does not list.
func asGiven(words []string, page string) ([]string, string) {
	args := slices.Clone(words[:1])
	rest := words[1:]
	if len(rest) > 0 && slices.ContainsFunc(subcommandArgs(words[0]), func(s []string) bool { return len(s) > 1 && s[1] == rest[0] }) {
		args, rest = append(args, rest[0]), rest[1:]
	}
	flags := flagsOf(page)
	for i := 0; i < len(rest); i++ {
		if !strings.HasPrefix(rest[i], "-") || rest[i] == "-" {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(rest[i], "-"), "=")
		kind, ok := flags[name]
		switch {
		case !ok && name != "help" && name != "h":
			return nil, rest[i]
		case kind == "" || hasValue:
			args = append(args, rest[i])
			continue
		}
		if i+1 < len(rest) && !strings.HasPrefix(rest[i+1], "-") {
			i++
			value = rest[i]
		}
		args = append(args, "--"+name, valueOf(kind, value))
	}
	return append(args, "--help"), ""
}

// valueOf is value, or a value of kind in its stead when value is a
// placeholder that would not parse as one.
func valueOf(kind, value string) string {
	switch kind {
	case "int", "uint":
		if _, err := strconv.Atoi(value); err != nil {
			return "1"
		}
	case "duration":
		if _, err := time.ParseDuration(value); err != nil {
			return "1s"
		}
	}
	if value == "" {
		return "x"
	}
	return value
}

// Every billsnap command line that README.md and docs/*.md show runs,
// with --help appended: its command and subcommand exist, and each of its
// flags is one they take, with a value of the flag's kind.
func TestTheDocumentsCommandLinesRun(t *testing.T) {
	t.Parallel()
	lines := docCommands(t)
	if len(lines) < 100 {
		t.Fatalf("%d command lines found in the documents", len(lines))
	}
	for _, c := range lines {
		text := strings.Join(c.words, " ")
		if shownAsMistakes[text] {
			continue
		}
		var page bytes.Buffer
		path := c.words[:1]
		if len(c.words) > 1 && slices.ContainsFunc(subcommandArgs(c.words[0]), func(s []string) bool { return len(s) > 1 && s[1] == c.words[1] }) {
			path = c.words[:2]
		}
		if code := e2etest.RunWith(context.Background(), append(slices.Clone(path), "--help"), &page, io.Discard, e2etest.NoEnv); code != job.ExitOK {
			t.Errorf("%s: billsnap %s: no such command (billsnap %s --help exits %d)", c.where, text, strings.Join(path, " "), code)
			continue
		}
		args, unknown := asGiven(c.words, page.String())
		if unknown != "" {
			t.Errorf("%s: billsnap %s: billsnap %s takes no flag %s", c.where, text, strings.Join(path, " "), unknown)
			continue
		}
		var stderr bytes.Buffer
		if code := e2etest.RunWith(context.Background(), args, io.Discard, &stderr, e2etest.NoEnv); code != job.ExitOK {
			t.Errorf("%s: billsnap %s: billsnap %s exits %d: %s", c.where, text, strings.Join(args, " "), code, stderr.String())
		}
	}
}

// The README's groups of flags name only flags each command of the group
// takes: "- **service flags**, the commands … (export, run, …): `--base-url`, …".
func TestTheREADMEsFlagGroupsAreTheCommands(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, groups, _ := strings.Cut(string(b), "Flags come in groups, and each command takes only its own:\n\n")
	groups, _, _ = strings.Cut(groups, "\n\n")
	bullets := strings.Split("\n"+groups, "\n- ")[1:]
	if len(bullets) != 3 {
		t.Fatalf("%d groups of flags", len(bullets))
	}
	flag := regexp.MustCompile("`(--[a-z-]+)")
	for _, bullet := range bullets {
		bullet = strings.Join(strings.Fields(bullet), " ")
		names, _, _ := strings.Cut(bullet, "):")
		var cmds []string
		if _, list, ok := strings.Cut(names, "("); ok {
			list, _, _ = strings.Cut(list, ")")
			if _, after, ok := strings.Cut(list, ": "); ok {
				list = after
			}
			list = strings.NewReplacer(" and ", ", ", "every command but ", "").Replace(list)
			for _, c := range strings.Split(list, ", ") {
				cmds = append(cmds, strings.TrimSpace(c))
			}
		}
		if len(cmds) < 3 {
			t.Fatalf("a group names %d commands: %q", len(cmds), bullet)
		}
		if strings.Contains(names, "every command but") {
			var others []string
			for _, name := range cli.CommandNames() {
				if !slices.Contains(cmds, name) {
					others = append(others, name)
				}
			}
			cmds = others
		}
		for _, c := range cmds {
			for _, sub := range subcommandArgs(strings.Fields(c)[0]) {
				if len(strings.Fields(c)) > 1 && !slices.Equal(sub, strings.Fields(c)) {
					continue
				}
				flags := flagsOf(helpOf(t, sub...))
				for _, f := range flag.FindAllStringSubmatch(bullet, -1) {
					if _, ok := flags[strings.TrimPrefix(f[1], "--")]; !ok {
						t.Errorf("the README's %q: billsnap %s takes no %s", names, strings.Join(sub, " "), f[1])
					}
				}
			}
		}
	}
}
