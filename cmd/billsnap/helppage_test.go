package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/job"
)

// helpPageArgs are the command lines whose --help is a page of its own:
// every command, and every subcommand.
func helpPageArgs() [][]string {
	var all [][]string
	for _, name := range cli.CommandNames() {
		all = append(all, []string{name})
		for _, sub := range subcommandArgs(name) {
			if !slices.Equal(sub, []string{name}) {
				all = append(all, sub)
			}
		}
	}
	return all
}

var exitLine = regexp.MustCompile(`(?m)^  (\d+) +(.*)$`)

// exitsOf are the exit codes a help page lists, with their meanings.
func exitsOf(t *testing.T, page string) map[int]string {
	t.Helper()
	_, section, ok := strings.Cut(page, "\nExit codes:\n")
	if !ok {
		t.Fatalf("no exit codes:\n%s", page)
	}
	exits := map[int]string{}
	for _, m := range exitLine.FindAllStringSubmatch(section, -1) {
		code, _ := strconv.Atoi(m[1])
		exits[code] = m[2]
	}
	return exits
}

// Every help page, the top-level one too, opens with one sentence that
// says what the command does (not "Usage"), and ends with the exit codes
// that command can return: never the generic meaning of 0 for a command
// that runs until stopped or only prints, 3 only for the commands whose
// work can be material, 0, 1 and 2 meaning something of their own.
func TestEveryHelpPageOpensWithASentenceAndListsItsOwnExits(t *testing.T) {
	t.Parallel()
	material := map[string]bool{"export": true, "reconcile": true, "report": true, "run": true, "recheck": true}
	sentence := regexp.MustCompile(`^[A-Z][^\n]*[A-Za-z)]\.$`)
	top := helpOf(t)
	if first, _, _ := strings.Cut(top, "\n"); !sentence.MatchString(first) {
		t.Errorf("billsnap --help opens with %q, not a sentence", first)
	}
	meanings := map[string][]string{}
	for _, args := range helpPageArgs() {
		name := strings.Join(args, " ")
		page := helpOf(t, args...)
		first, rest, _ := strings.Cut(page, "\n")
		if !sentence.MatchString(first) || strings.HasPrefix(first, "Usage") || !strings.HasPrefix(rest, "\nUsage: billsnap "+args[0]) {
			t.Errorf("%s --help opens with %q, not one sentence then its usage", name, first)
		}
		exits := exitsOf(t, page)
		for _, code := range []int{job.ExitOK, job.ExitUsage} {
			if exits[code] == "" {
				t.Errorf("%s --help lists no exit %d", name, code)
			}
		}
		if _, ok := exits[job.ExitMaterial]; ok != material[args[0]] {
			t.Errorf("%s --help lists exit 3: %v, want %v", name, ok, material[args[0]])
		}
		if strings.Contains(exits[job.ExitOK], "the job ran") {
			t.Errorf("%s --help says 0 is %q", name, exits[job.ExitOK])
		}
		for code, means := range exits {
			meanings[strconv.Itoa(code)+means] = append(meanings[strconv.Itoa(code)+means], name)
		}
	}
	for k, names := range meanings {
		if len(names) > 4 && !strings.HasPrefix(k, "130") {
			t.Errorf("%d pages say the same of exit %s: %v", len(names), k, names)
		}
	}
	for _, name := range []string{"serve", "sandbox", "schedule"} {
		if exits := exitsOf(t, helpOf(t, name)); !strings.Contains(exits[job.ExitOK], "stopped by SIGINT or SIGTERM") {
			t.Errorf("%s --help: exit 0 %q", name, exits[job.ExitOK])
		}
	}
}

// The exit code of every pinned transcript (the usage errors a user meets
// first, testdata/cli) is one that its command's help page lists.
func TestTheTranscriptsExitAsTheirHelpSays(t *testing.T) {
	t.Parallel()
	pinned := regexp.MustCompile(`(?m)^\[exit (\d+)\]$`)
	checked := 0
	for _, tr := range transcripts() {
		if len(tr.args) == 0 || strings.HasPrefix(tr.args[0], "-") || tr.name == "unknown-command" {
			continue
		}
		args := tr.args[:1]
		if len(tr.args) > 1 && slices.ContainsFunc(subcommandArgs(tr.args[0]), func(s []string) bool { return len(s) > 1 && s[1] == tr.args[1] }) {
			args = tr.args[:2]
		}
		b, err := os.ReadFile(filepath.Join("testdata", "cli", tr.name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		m := pinned.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: no exit code pinned", tr.name)
		}
		code, _ := strconv.Atoi(string(m[1]))
		if _, ok := exitsOf(t, helpOf(t, args...))[code]; !ok {
			t.Errorf("%s exits %d, which %s --help does not list", tr.name, code, strings.Join(args, " "))
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("%d transcripts checked", checked)
	}
}

// The README's table of exit codes has every code a help page lists, and
// no other; its exit 3 names the commands whose pages list it.
func TestTheREADMEsExitCodesAreTheHelpPages(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(b), "\n## Exit codes\n")
	table, _, _ = strings.Cut(table, "\n## ")
	readme := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| (.*) \|$`).FindAllStringSubmatch(table, -1) {
		code, _ := strconv.Atoi(m[1])
		readme[code] = m[2]
	}
	listed := map[int]bool{}
	for _, args := range helpPageArgs() {
		for code := range exitsOf(t, helpOf(t, args...)) {
			listed[code] = true
			if readme[code] == "" {
				t.Errorf("%s --help lists exit %d, which the README does not", strings.Join(args, " "), code)
			}
		}
		if _, ok := exitsOf(t, helpOf(t, args...))[job.ExitMaterial]; ok && !strings.Contains(readme[job.ExitMaterial], "`"+args[0]+"`") {
			t.Errorf("the README's exit 3 does not name %s", args[0])
		}
	}
	for code := range readme {
		if !listed[code] {
			t.Errorf("the README lists exit %d, which no help page does", code)
		}
	}
}
