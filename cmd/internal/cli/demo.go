package cli

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// demoData is the sandbox the demo exports: the same seed, size and now
// give the same records, so `billsnap sandbox` can serve it again.
type demoData struct {
	seed      uint64
	customers int
	now       time.Time
}

// Ports the demo's next steps use when they are free.
const (
	sandboxPort   = "8081"
	workspacePort = "8080"
	demoKey       = "sandbox-key" // the next steps' sandbox key (a sandbox's, never a service's)
)

// runDemo runs the job against the sandbox started in-process with a key
// of its own: no credentials, nothing to set up. It exits 0 whatever it
// finds (its reports and the journal say so), and ends with the commands
// that carry on against the same data.
func runDemo(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "demo", "[--out DIR] [--customers N] [--seed N] [--now RFC3339] [--progress MODE]")
	out := fs.String("out", "billsnap-demo", "output directory")
	customers := fs.Int("customers", 250, "clean customers in the sandbox")
	seed := fs.Uint64("seed", 1, "seed of the sandbox's data")
	nowFlag := fs.String("now", "", "the sandbox's clock, RFC 3339 (default: now); it moves every date, never the data")
	progressMode := fs.String("progress", "auto", "progress on stderr: auto, bar, log or none")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	data := demoData{seed: *seed, customers: *customers, now: time.Now().UTC().Truncate(time.Second)}
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return usage.Errorf("--now: want RFC 3339, such as 2026-11-22T03:00:00Z")
		}
		data.now = t.UTC().Truncate(time.Second)
	}
	key := rand.Text()
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{APIKey: key,
		Data: sandbox.Options{Seed: data.seed, Customers: data.customers, Planted: 2, Now: data.now}}))
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(env.stdout, "sandbox: seed %d, %d customers, 2 planted cases per rule, now %s (base_url=%s)\n\n",
		data.seed, data.customers, data.now.Format(time.RFC3339), srv.BaseURL())
	cfg := config.Default()
	cfg.BaseURL, cfg.FrontURL, cfg.Out, cfg.Progress = srv.BaseURL(), srv.FrontURL(), *out, *progressMode
	if env.tune != nil {
		env.tune(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		return usage.Wrap(err)
	}
	paths, err := demoJob(ctx, env, cfg, extract.NewSecret(key))
	if err != nil {
		return err
	}
	self := selfCommand()
	printDemoEnd(env.stdout, self, cfg, paths)
	printNextSteps(env.stdout, self, cfg.Out, data)
	return nil
}

// demoJob exports the sandbox, reconciles and writes the reports, as one
// run on record; it returns the reports' paths.
func demoJob(ctx context.Context, env *cliEnv, cfg config.Config, secret *extract.Secret) ([]string, error) {
	env.setSecret(secret)
	var paths []string
	_, err := env.job(ctx, cfg, job.Spec{Name: "demo", ExportLock: true}, nil, func(ctx context.Context, store *snapshot.Store) (job.Outcome, error) {
		sum, _, err := env.export(ctx, cfg, secret, store)
		if err != nil {
			return job.Outcome{}, err
		}
		printSummary(env.stdout, cfg, sum)
		fmt.Fprintf(env.stdout, "\n")
		opts, err := job.ReconcileOptions(cfg, "", "")
		if err != nil {
			return job.Outcome{}, err
		}
		opts.SnapshotID = sum.ID
		rep, written, err := env.report(ctx, cfg, store, opts, job.ReportSpec{Formats: cfg.Reports.Formats, Demo: true}, env.stdout)
		if err != nil {
			return job.Outcome{}, err
		}
		paths = written
		o := job.ReconcileOutcome(rep)
		o.Demo = true
		return o, nil
	})
	return paths, err
}

// printDemoEnd says where the snapshot and the reports are.
func printDemoEnd(w io.Writer, self string, cfg config.Config, paths []string) {
	fmt.Fprintf(w, "\nQuery the snapshot (no DuckDB CLI needed):\n  %s query --out %s \"%s\"\n", self, shellWord(cfg.Out), readmodel.ExampleQuery)
	fmt.Fprintf(w, "or with the DuckDB CLI on %s, or any Parquet reader on %s.\n",
		filepath.Join(cfg.Out, cfg.DuckDB.File), filepath.Join(cfg.Out, cfg.Parquet.Dir, "<table>", "*", "*.parquet"))
	fmt.Fprintf(w, "\nReports:\n")
	for _, p := range paths {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

// printNextSteps prints, as the demo's last lines, the commands that carry
// on against a sandbox serving the same data: recheck, the fix plan, its
// dry run and its application, a run that sees the findings resolved,
// what the fixes changed in the service's records (changes), the
// workspace. Each is runnable as printed, in one shell, in this order;
// those that end with an exit code other than 0 say which and what it
// means there, and, under go run, how go run prints it.
func printNextSteps(w io.Writer, self, out string, d demoData) {
	sandboxAddr := "127.0.0.1:" + freePort(sandboxPort)
	workspaceAddr := "127.0.0.1:" + freePort(workspacePort)
	store := shellWord(out)
	steps := []nextStep{
		{cmd: fmt.Sprintf("%s sandbox --api-key %s --seed %d --customers %d --now %s --listen %s &",
			self, demoKey, d.seed, d.customers, d.now.Format(time.RFC3339), sandboxAddr)},
		{cmd: fmt.Sprintf("export BILLSNAP_BASE_URL=http://%s BILLSNAP_FRONT_URL=http://%s BILLSNAP_API_KEY=%s", sandboxAddr, sandboxAddr, demoKey)},
		{cmd: fmt.Sprintf("%s recheck --out %s", self, store), exit: job.ExitMaterial,
			means: "material findings confirmed, as the sandbox planted them"},
		{cmd: fmt.Sprintf("%s fix plan --out %s > plan.json", self, store)},
		{cmd: fmt.Sprintf("%s fix apply --out %s --plan plan.json --dry-run", self, store)},
		{cmd: fmt.Sprintf("%s fix apply --out %s --plan plan.json", self, store)},
		{cmd: fmt.Sprintf("%s run --out %s", self, store), exit: job.ExitMaterial,
			means: "material findings the plan could not fix remain"},
		{cmd: fmt.Sprintf("%s changes --out %s", self, store)},
		{cmd: fmt.Sprintf("%s serve --out %s --listen %s", self, store, workspaceAddr)},
	}
	goRun := strings.HasPrefix(self, "go run ")
	fmt.Fprintf(w, "\nCarry on against the same data, served again by a sandbox (docs/remediation.md):\n"+
		"recheck the findings, plan the fixes, try them, apply them, see them resolved and the records they changed, and review in the workspace\n"+
		"(then open http://%s/). Each step ends with exit 0 unless its comment says otherwise:\n"+
		"exit 3 means material findings, which the sandbox plants on purpose", workspaceAddr)
	if goRun {
		fmt.Fprintf(w, " (go run prints it as \"exit status 3\" and exits 1 itself)")
	}
	fmt.Fprintf(w, ". In one shell, in this order:\n\n")
	for _, s := range steps {
		if s.exit == job.ExitOK {
			fmt.Fprintf(w, "  %s\n", s.cmd)
			continue
		}
		how := ""
		if goRun {
			how = fmt.Sprintf(" (%q under go run)", fmt.Sprintf("exit status %d", s.exit))
		}
		fmt.Fprintf(w, "  %s  # exit %d%s: %s\n", s.cmd, s.exit, how, s.means)
	}
}

// nextStep is one of the demo's next steps: the command line, and the
// exit code it ends with when that is not 0, with what it means there.
type nextStep struct {
	cmd   string
	exit  int
	means string
}

// freePort is port when nothing listens on it on loopback, else a free one.
func freePort(port string) string {
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return port
		}
	}
	defer l.Close()
	_, p, _ := net.SplitHostPort(l.Addr().String())
	return p
}

// selfCommand is how a person runs this billsnap again: "billsnap" when
// PATH finds this program, "go run ./cmd/billsnap" under go run, else its
// path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "billsnap"
	}
	if p, err := exec.LookPath("billsnap"); err == nil && sameFile(p, exe) {
		return "billsnap"
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/billsnap"
	}
	return shellWord(exe)
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
