package help

import (
	"fmt"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/job"
)

// Args rewrites the spellings other tools teach into billsnap's
// own, before a command is looked up: `billsnap help CMD …` is
// `billsnap CMD … --help`, and `billsnap --version` (or -version, -v) is
// `billsnap version`. Other arguments are returned as they are.
func Args(args []string) []string {
	if len(args) == 0 {
		return args
	}
	switch args[0] {
	case "help":
		if len(args) > 1 {
			return append(slices.Clone(args[1:]), "--help")
		}
	case "--version", "-version", "-v":
		return append([]string{"version"}, args[1:]...)
	}
	return args
}

// page is what a command's --help says besides its usage and flags: what
// the command does, in one sentence that opens the page, and the exit
// codes it can return, each with its meaning for that command.
type page struct {
	does  string
	exits []exit
}

// exit is one exit code a command can return and what it means for it.
type exit struct {
	code  int
	means string
}

// The exits most commands share.
var (
	interrupted = exit{job.ExitInterrupted, "interrupted by SIGINT or SIGTERM before it finished"}
	stopped     = exit{job.ExitOK, "stopped by SIGINT or SIGTERM, as intended (it runs until then)"}
)

// ExitCodes says what the exit codes (job.Exit*) mean in general,
// for the top-level --help; each command's --help lists the codes it can
// return, with their meaning for it (pages).
const ExitCodes = `Exit codes (each command's --help lists those it can return, and what they mean for it):
  0    ok: the command did what it was asked, and found nothing material
  1    failure: the service, the network, the disk, or what does not verify
  2    usage: bad flags, arguments or configuration, named in one line
  3    material: discrepancies at or above materiality, or an incomplete snapshot
  130  interrupted by SIGINT or SIGTERM before it finished`

// ProgramDoes opens the top-level help: what billsnap does.
const ProgramDoes = "Snapshots a subscription billing service into DuckDB and Parquet, reconciles it and reports what it found."

// pages are the help pages of the commands and subcommands, by the name
// the CLI's newFlags and dispatch are given.
var pages = map[string]page{
	"demo": {"Runs the whole job (export, reconcile, reports) against a sandbox it starts itself: no credentials, nothing to set up.", []exit{
		{job.ExitOK, "the demo ran, whatever it found: it shows, never fails (its reports and the journal say what is material)"},
		{job.ExitFailure, "failure: the disk, or the sandbox it started"},
		{job.ExitUsage, "usage: a bad flag or --now, or an --out that is a file"},
		interrupted}},
	"export": {"Takes one complete, verified snapshot of the service into DuckDB and Parquet.", []exit{
		{job.ExitOK, "a complete snapshot was taken and published"},
		{job.ExitFailure, "failure: the service, the network, the disk, or bad input from the service"},
		{job.ExitUsage, "usage: bad flags or configuration, no API key, an unusable --out (a file, a missing parent, no permission)"},
		{job.ExitMaterial, "the snapshot is incomplete: kept in DuckDB for inspection, not published"},
		interrupted}},
	"reconcile": {"Runs the reconciliation rules over a snapshot of the store and prints the findings.", []exit{
		{job.ExitOK, "nothing material found"},
		{job.ExitFailure, "failure: the store cannot be read, or the disk; with --period of a closed period, a Parquet file it reads that does not hash to its snapshot's manifest (named)"},
		{job.ExitUsage, reconcileUsage},
		{job.ExitMaterial, "material: findings at or above materiality"},
		interrupted}},
	"report": {"Reconciles a snapshot of the store and writes the reports (Markdown, HTML, XLSX, CSV, JSON).", []exit{
		{job.ExitOK, "nothing material found; the reports are written"},
		{job.ExitFailure, "failure: the store cannot be read, or the disk; with --period of a closed period, a Parquet file it reads that does not hash to its snapshot's manifest (named)"},
		{job.ExitUsage, reconcileUsage + ", an unknown --format"},
		{job.ExitMaterial, "material: findings at or above materiality (the reports are written)"},
		interrupted}},
	"run": {"Exports a snapshot, reconciles it and writes its reports: the one-shot for cron or a Kubernetes CronJob.", []exit{
		{job.ExitOK, "a complete snapshot, nothing material found; the reports are written"},
		{job.ExitFailure, "failure: the service, the network, the disk, or bad input from the service"},
		{job.ExitUsage, "usage: bad flags or configuration, no API key, an unusable --out (a file, a missing parent, no permission)"},
		{job.ExitMaterial, "material: findings at or above materiality, or the snapshot is incomplete"},
		interrupted}},
	"recheck": {"Reads the service again for the findings about charges, and says which are confirmed, changed or gone.", []exit{
		{job.ExitOK, "no finding rechecked is still material"},
		{job.ExitFailure, "failure: the service, the network, the disk"},
		{job.ExitUsage, "usage: bad flags or configuration, no API key, an unknown --snapshot or one never reconciled, no store at --out"},
		{job.ExitMaterial, "material: findings confirmed or changed that are still at or above materiality"},
		interrupted}},
	"fix": {"Plans the writes that repair findings (fix plan), and applies a reviewed plan once (fix apply).", []exit{
		{job.ExitOK, "the plan is written, or applied"},
		{job.ExitFailure, "failure: a write the service refused, the network, the disk"},
		{job.ExitUsage, "usage: bad flags, a plan fix apply refuses, an unknown --snapshot (each subcommand's --help says more)"},
		interrupted}},
	"fix plan": {"Writes a reviewable plan of the writes that repair findings, each tied to its finding, to stdout.", []exit{
		{job.ExitOK, "the plan is written (it may be empty)"},
		{job.ExitFailure, "failure: the store cannot be read"},
		{job.ExitUsage, "usage: bad flags or configuration, a bad --amounts file, an unknown --snapshot or one never reconciled, no store at --out"},
		interrupted}},
	"fix apply": {"Applies a reviewed plan once, on record: each write sent at most once, read back when its fate is unknown.", []exit{
		{job.ExitOK, "every action is applied (or, with --dry-run, printed and none sent)"},
		{job.ExitFailure, "failure: a write the service refused, the network, the disk"},
		{job.ExitUsage, "usage: bad flags or configuration, no --plan, no API key, a plan changed since it was made or made from a snapshot that is no longer the latest (without --force)"},
		interrupted}},
	"schedule": {"Runs the configuration's schedules (cron) until SIGINT or SIGTERM, each run recorded.", []exit{
		stopped,
		{job.ExitFailure, "failure: --listen cannot be served (a run's own exit code is in the journal, status and /metrics)"},
		{job.ExitUsage, "usage: bad flags or configuration, no schedules, no API key, an unusable --out"}}},
	"status": {"Shows the last runs, the latest snapshot's fields and when each schedule fires next.", []exit{
		{job.ExitOK, "the status is printed (with --verify: every Parquet file of every snapshot kept hashes to its manifest)"},
		{job.ExitFailure, "failure: the journal or the store cannot be read; with --verify, a Parquet file differs from its snapshot's manifest (each named)"},
		{job.ExitUsage, "usage: bad flags or configuration, no store at --out"},
		interrupted}},
	"check-config": {"Prepares what the commands would (configuration, key, rules, waivers, schedules, lake) without running any, then asks the service one page with the key.", []exit{
		{job.ExitOK, "everything is ready (configuration OK), and the service answered the key (unless --offline)"},
		{job.ExitFailure, "failure: the service refused the key or could not be reached, named with where the key came from"},
		{job.ExitUsage, "usage: what does not prepare, named: a key of the configuration, a file it names, no API key, a lake that cannot be written"}}},
	"query": {"Runs one SQL statement on the store's read model, read-only, and prints its rows.", []exit{
		{job.ExitOK, "the rows are printed"},
		{job.ExitFailure, "failure: the statement failed as it ran, or the store cannot be read"},
		{job.ExitUsage, "usage: bad flags, a statement that does not prepare or would write, an --as-of before the store's history or naming no snapshot of it, no store at --out"},
		interrupted}},
	"changes": {"Prints what changed in the service's records between two snapshots or times, from the store's history.", []exit{
		{job.ExitOK, "the changes are printed (there may be none)"},
		{job.ExitFailure, "failure: the store cannot be read"},
		{job.ExitUsage, "usage: bad flags, a --since or --until before the store's history or naming no snapshot of it, an unknown --table, no store at --out"},
		interrupted}},
	"notify":      {"Sends a test message to every notification target (notify test).", notifyExits},
	"notify test": {"Sends a test message to every notification target and prints how each went.", notifyExits},
	"lake":        {"Prints the statements that attach the tables on object storage to a query engine (lake ddl).", lakeExits},
	"lake ddl":    {"Prints the statements that attach the tables on object storage to Trino, Spark, Athena or DuckDB.", lakeExits},
	"evidence": {"Writes the evidence pack of a closed period, a BagIt zip (or, as evidence verify, verifies one).", []exit{
		{job.ExitOK, "the pack is written"},
		{job.ExitFailure, "failure: the store, the ledger or the disk; a Parquet file of the snapshot that does not hash to its manifest (named), and no pack is written"},
		{job.ExitUsage, "usage: bad flags, a period that is not closed, a --close not in the ledger or not of --period, no store at --out"},
		interrupted}},
	"evidence verify": {"Verifies an evidence pack as a strict BagIt validator would, and against the store when it holds the snapshot.", []exit{
		{job.ExitOK, "the pack is intact"},
		{job.ExitFailure, "the first member, file or ledger entry that differs, named; or --timeout passed"},
		{job.ExitUsage, "usage: bad flags, not one FILE.zip"},
		interrupted}},
	"ledger": {"Verifies the hash chain of the store's ledger of waivers, sign-offs and closes (ledger verify), or chains an old one (ledger chain).", []exit{
		{job.ExitOK, "the chain holds, or is made"},
		{job.ExitFailure, "the first line that does not verify, named; a ledger chain refuses; the disk"},
		{job.ExitUsage, "usage: bad flags or configuration, no store at --out"}}},
	"ledger verify": {"Verifies the hash chain of the store's ledger of waivers, sign-offs and closes, from its first line.", []exit{
		{job.ExitOK, "the chain holds"},
		{job.ExitFailure, "the first line that does not verify, named, or a ledger that cannot be read"},
		{job.ExitUsage, "usage: bad flags or configuration, no store at --out"}}},
	"ledger chain": {"Chains a ledger written before billsnap chained it, keeping each line byte for byte.", []exit{
		{job.ExitOK, "the ledger is chained (or empty)"},
		{job.ExitFailure, "refused: a line is chained already, or a head was ever recorded; or the disk"},
		{job.ExitUsage, "usage: bad flags or configuration, no store at --out"}}},
	"serve": {"Serves the finance workspace: review, waive and sign off findings, and close the month, in a browser.", []exit{
		stopped,
		{job.ExitFailure, "failure: --listen cannot be served, or the store cannot be read"},
		{job.ExitUsage, "usage: bad flags or configuration, an address that is not loopback without --token-file or workspace.identity, a token file missing or too short, no store at --out"}}},
	"sandbox": {"Serves a faithful fake of the billing service over HTTP, with planted discrepancies and faults on demand.", []exit{
		stopped,
		{job.ExitFailure, "failure: --listen cannot be served, or --answer-key cannot be written"},
		{job.ExitUsage, "usage: no --api-key, a bad --faults, --now or count"}}},
	"version": {"Prints the versions of billsnap, DuckDB and Go, and where the lake's program is.", []exit{
		{job.ExitOK, "the versions are printed"},
		{job.ExitFailure, "failure: DuckDB cannot say its version"},
		{job.ExitUsage, "usage: a flag or an argument (it takes none)"}}},
}

// reconcileUsage is what exit 2 means for reconcile and report.
const reconcileUsage = "usage: bad flags or configuration (rules, waivers, materiality), an unknown --snapshot, no store at --out, or one billsnap may not write in"

var (
	notifyExits = []exit{
		{job.ExitOK, "every target took the test message"},
		{job.ExitFailure, "a target failed (each is named)"},
		{job.ExitUsage, "usage: bad flags or configuration, no notification target"},
		interrupted}
	lakeExits = []exit{
		{job.ExitOK, "the statements are printed"},
		{job.ExitFailure, "failure: the Iceberg catalog cannot be read"},
		{job.ExitUsage, "usage: bad flags or configuration, an unknown --engine, no parquet.url, no Iceberg catalog where one is configured"},
		interrupted}
)

// Page is the help of the command name: the sentence that says what
// it does, then body (its usage, what it says of itself, its flags), then
// the exit codes it can return.
func Page(name, body string) string {
	p := pages[name]
	var b strings.Builder
	b.WriteString(p.does + "\n\n")
	b.WriteString(strings.TrimRight(body, "\n") + "\n\n")
	b.WriteString("Exit codes:\n")
	for _, e := range p.exits {
		fmt.Fprintf(&b, "  %-4d %s\n", e.code, wrap(e.means, 72, "\n       "))
	}
	return b.String()
}

// wrap breaks s at spaces into lines of at most width runes (a longer
// word stands alone), joined by sep.
func wrap(s string, width int, sep string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), sep)
}
