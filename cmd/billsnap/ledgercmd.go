package main

import (
	"context"
	"fmt"

	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/ledger"
)

// ledgerUsage is ledger's own help: its subcommands.
const ledgerUsage = `Usage: billsnap ledger verify [store flags]
       billsnap ledger chain [store flags]

verify  checks the hash chain of the store's ledger (waivers, sign-offs, closes)
        from its first line: each line hashes to its "hash" and names the line
        before it in "prev". Prints the entries and the head's hash; exit 1
        naming the first line that does not fit.
chain   chains a ledger written before billsnap chained it (serve does so as it
        starts, and so does the ledger's next write): each line kept byte for
        byte, the file as it was kept beside it as ledger.jsonl.unchained.

'billsnap ledger verify --help' lists its flags.
`

// runLedger runs ledger verify or ledger chain.
func runLedger(ctx context.Context, env *cliEnv, args []string) error {
	return dispatch(ctx, env, "ledger", ledgerUsage, args, subcommand{"verify", runLedgerVerify}, subcommand{"chain", runLedgerChain})
}

// storeLedger parses the store flags of a ledger subcommand and gives the
// store's ledger.
func storeLedger(env *cliEnv, name string, args []string) (*ledger.Ledger, error) {
	fs := newFlags(env, name, "[store flags]")
	sf := addStoreFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	cfg, err := sf.load(env)
	if err != nil {
		return nil, err
	}
	if err := sf.requireStore(cfg); err != nil {
		return nil, err
	}
	return storeLedgerOf(cfg), nil
}

func runLedgerVerify(_ context.Context, env *cliEnv, args []string) error {
	l, err := storeLedger(env, "ledger verify", args)
	if err != nil {
		return err
	}
	head, err := l.Verify()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "ledger %s: %s, the chain holds; head %s\n", l.Path(), plural.Irregular(head.Entries, "entry", "entries"), head.Hash)
	return nil
}

func runLedgerChain(_ context.Context, env *cliEnv, args []string) error {
	l, err := storeLedger(env, "ledger chain", args)
	if err != nil {
		return err
	}
	n, err := l.Chain()
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(env.stdout, "ledger %s: chained already\n", l.Path())
		return nil
	}
	fmt.Fprintf(env.stdout, "ledger %s: %s chained; the ledger as it was is %s.unchained\n", l.Path(), plural.Of(n, "line"), l.Path())
	return nil
}
