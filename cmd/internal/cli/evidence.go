package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/evidence"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/atomicfile"
	"github.com/billsnap/billsnap/internal/buildinfo"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/layout"
	"github.com/billsnap/billsnap/ledger"
	"github.com/billsnap/billsnap/snapshot"
	"github.com/billsnap/billsnap/snapshot/readmodel"
	"github.com/billsnap/billsnap/usage"
)

// evidenceAbout is evidence's own help: the pack and its verify.
const evidenceAbout = `evidence  writes the evidence pack of a closed period: a zipped BagIt bag of the
          closed findings (CSV, JSON), the report (HTML, XLSX, Markdown), the
          snapshot's Parquet manifest with every file's SHA-256, the ledger with its
          hash chain, the sign-offs, the waivers in force, the rules' SQL as run, and
          manifest-sha256.txt over all of it. --close ID packs a close reopened
          since (its ID: the error of --period, the workspace's audit log), as the
          pack was the moment before the reopening. Exit 2 when the period is not
          closed, the close is not in the ledger, or not of --period.
verify    checks a pack as a strict BagIt validator would, and more: it refuses
          duplicate members, members outside the bag's one top directory, absolute
          paths, "..", symlinks and other non-regular entries; it streams every file
          through SHA-256 against the manifests (both ways), never reading more than
          bag-info.txt's Payload-Oxum declares (at most 4 GiB); it re-runs the
          ledger's chain, derives close.json, signoffs.json, waivers.json and
          period.jsonl again from it and compares them byte for byte, and checks the
          closed record against the close's hashes; when the store holds the
          snapshot, also its ledger, its Parquet (found inside the store only) and
          the per-table figures against the pack. Files nothing vouches for are
          named on a "not tied:" line. --timeout (default 10m) bounds it. Exit 0
          intact, 1 naming the first member, file or ledger entry that differs (or
          the timeout), 130 on SIGINT/SIGTERM.
`

// runEvidence writes a pack, or verifies one.
func runEvidence(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) > 0 && args[0] == "verify" {
		return runEvidenceVerify(ctx, env, args[1:])
	}
	fs := newFlags(env, "evidence", "--period YYYY-MM | --close ID [-o FILE.zip] [store flags]\n       billsnap evidence verify FILE.zip [store flags]")
	sf := addStoreFlags(fs)
	period := fs.String("period", "", "the closed period, YYYY-MM; required without --close")
	closeID := fs.String("close", "", "the close to pack, by its ID (C…), reopened since or standing; its period is the pack's")
	out := fs.String("o", "", "the zip to write (default billsnap-evidence-YYYY-MM.zip, with --close billsnap-evidence-YYYY-MM-ID.zip)")
	fs.about = evidenceAbout
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if _, err := findings.ParsePeriod(*period); err != nil && (*period != "" || *closeID == "") {
		return usage.Errorf("--period %q: want the closed month as YYYY-MM (or --close ID)", *period)
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	if err := sf.requireStore(cfg); err != nil {
		return err
	}
	db, err := snapshot.OpenRead(ctx, cfg.Options)
	if err != nil {
		return err
	}
	defer db.Close()
	var pack bytes.Buffer
	p, err := evidence.Write(ctx, &pack, evidence.Source{Root: cfg.Out, ParquetDir: parquetDir(cfg), Ledger: storeLedgerOf(cfg),
		Figures: readmodel.ManifestOf(db), Check: snapshot.CheckFiles(cfg.Options), Period: *period, Close: *closeID, Software: "billsnap " + buildinfo.Version(), Now: time.Now()})
	var notClosed *evidence.NotClosedError
	var unknown *evidence.UnknownCloseError
	switch {
	case errors.As(err, &notClosed), errors.As(err, &unknown):
		return usage.Wrap(err)
	case err != nil:
		return err
	}
	if *out == "" {
		*out = p.Name + ".zip"
		if *closeID != "" {
			*out = p.Name + "-" + p.Close.ID + ".zip"
		}
	}
	if err := atomicfile.Write(*out, pack.Bytes()); err != nil {
		return fmt.Errorf("-o %s: %w", *out, err)
	}
	fmt.Fprintf(env.stdout, "%s: period %s, closed in %s by %s on %s; %s, %s listed; ledger head %s\n", *out, p.Close.Period,
		p.Close.ID, p.Close.By, p.Close.At.UTC().Format(time.RFC3339), plural.Of(p.Files, "file"), plural.Of(p.Parquet, "Parquet file"), p.Head.Hash)
	return nil
}

// runEvidenceVerify verifies a pack, within --timeout; SIGINT and
// SIGTERM stop it (exit 130).
func runEvidenceVerify(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "evidence verify", "FILE.zip [--timeout D] [store flags]")
	fs.about = evidenceAbout
	sf := addStoreFlags(fs)
	timeout := fs.Duration("timeout", 10*time.Minute, "give up (exit 1) when verifying takes longer than this")
	file, err := parseWithOneArg(fs, args, "one pack, FILE.zip,")
	if err != nil {
		return err
	}
	if *timeout <= 0 {
		return usage.Errorf("--timeout %v: want a positive duration", *timeout)
	}
	cfg, err := sf.load(env)
	if err != nil {
		return err
	}
	vctx, cancel := context.WithTimeoutCause(ctx, *timeout, fmt.Errorf("gave up after --timeout %v", *timeout))
	defer cancel()
	var store *evidence.Against
	if snapshot.Exists(cfg.Options) {
		db, err := snapshot.OpenRead(vctx, cfg.Options)
		if err != nil {
			return err
		}
		defer db.Close()
		store = &evidence.Against{Root: cfg.Out, ParquetDir: parquetDir(cfg), Ledger: storeLedgerOf(cfg), Figures: readmodel.ManifestOf(db)}
	} else if given(sf.fs, "out") {
		return sf.requireStore(cfg)
	}
	v, err := evidence.Verify(vctx, file, store)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	printVerified(env, file, cfg.Out, v)
	return nil
}

// printVerified says what verify found intact, and what it could not tie.
func printVerified(env *cliEnv, file, store string, v evidence.Verified) {
	fmt.Fprintf(env.stdout, "%s: intact: %s re-hashed, the ledger's chain holds (%s, head %s)", file,
		plural.Of(v.Files, "file"), plural.Irregular(v.Entries, "entry", "entries"), v.Head)
	if v.Store {
		fmt.Fprintf(env.stdout, "; the store %s agrees (its ledger, %s)", store, plural.Of(v.Parquet, "Parquet file"))
	}
	fmt.Fprintln(env.stdout)
	for _, n := range v.Notes {
		fmt.Fprintln(env.stdout, "note: "+n)
	}
	if len(v.Untied) > 0 {
		fmt.Fprintf(env.stdout, "not tied: %s: matched the bag's manifest only; neither the ledger's chain nor the store vouches for %s\n",
			strings.Join(v.Untied, ", "), plural.Word(len(v.Untied), "it", "them"))
	}
}

func parquetDir(cfg config.Config) string { return filepath.Join(cfg.Out, cfg.Parquet.Dir) }

func storeLedgerOf(cfg config.Config) *ledger.Ledger {
	return ledger.New(layout.Dir(cfg.Out).Ledger(), time.Now)
}
