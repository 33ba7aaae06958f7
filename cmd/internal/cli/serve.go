package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/billsnap/billsnap/access"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/usage"
	"github.com/billsnap/billsnap/workspace"
)

// runServe serves the finance workspace over the store until SIGINT or
// SIGTERM (exit 0 then). It reads the store as any reader does and writes
// only the ledger of waivers and sign-offs.
func runServe(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "serve", "[--listen HOST:PORT] [--token-file FILE] [store flags]")
	sf := addStoreFlags(fs)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on; any but loopback needs --token-file or workspace.identity")
	tokenFile := fs.String("token-file", "", "file holding the token every request must show (a bearer header, or a browser's login)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	token, err := readToken(*tokenFile)
	if err != nil {
		return err
	}
	ctl, err := accessControl(env, cfg.Workspace, token)
	if err != nil {
		return err
	}
	if err := workspace.CheckListen(*listen, token != "" || ctl.Identity != access.None); err != nil {
		return usage.Wrap(err)
	}
	if err := sf.requireStore(cfg); err != nil {
		return err
	}
	opts, err := job.ReconcileOptions(cfg, "", "")
	if err != nil {
		return err
	}
	led := storeLedgerOf(cfg)
	if _, err := led.Verify(); err != nil {
		env.log.Warn("the ledger does not verify: the workspace takes no write until it does (billsnap ledger verify)", "error", err)
	}
	ws, err := workspace.New(workspace.Options{Store: cfg.Options, Reconcile: opts, Ledger: led,
		Token: token, Access: ctl, Trend: cfg.Reports.Trend, Flux: cfg.Flux, PageSize: 50, Log: env.log, Now: time.Now,
		SessionTTL: cfg.Workspace.SessionTTL, AllowUnattributed: cfg.Workspace.AllowUnattributed,
		Worklist: cfg.Worklist})
	if err != nil {
		return err
	}
	defer ws.Close()
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", *listen, err)
	}
	env.log.Info("the workspace is up", "url", "http://"+l.Addr().String()+"/", "store", cfg.Out, "token", token != "", "identity", identityText(ctl))
	err = ws.Serve(ctx, l)
	env.log.Info("stopped")
	return err
}

// readToken reads the token from file ("" : no token). A file that is
// missing or empty is a usage error: a token that is not there protects
// nothing.
func readToken(file string) (string, error) {
	if file == "" {
		return "", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", usage.Errorf("--token-file: %v", err)
	}
	token := strings.TrimSpace(string(b))
	if len(token) < 16 {
		return "", usage.Errorf("--token-file %s: the token must be at least 16 characters (it has %d)", file, len(token))
	}
	return token, nil
}

// accessControl is the workspace's access of c (a tokens file that is
// invalid, or that group or others may write, is a usage error). The
// shared token and an identity are one or the other: a shared token names
// no one.
func accessControl(env *cliEnv, c access.Config, token string) (*access.Control, error) {
	if token != "" && c.Identity != access.None {
		return nil, usage.Errorf("--token-file and workspace.identity %s are one or the other: with identity, each user is known by their own", c.Identity)
	}
	ctl, err := access.New(c, time.Now, env.log)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	return ctl, nil
}

// identityText says how the workspace knows who acts, for its log.
func identityText(c *access.Control) string {
	switch c.Identity {
	case access.Header:
		return "the " + c.Header + " header of " + strings.Join(c.Proxies, ", ")
	case access.Tokens:
		return fmt.Sprintf("a token each, %s in %s", plural.Of(c.Users(), "user"), c.TokensFile)
	}
	return "none: actions are unattributed"
}
