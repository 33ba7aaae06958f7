package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/ledger"
)

// ledgerUsage is ledger's own help: its subcommands.
const ledgerUsage = `Usage: billsnap ledger verify [store flags]
       billsnap ledger chain [store flags]

verify  checks the store's ledger (waivers, sign-offs, closes) from its first
        line: each line hashes to its "hash" and names the line before it in
        "prev", each line is a valid entry of its action, the file ends in a
        whole line, and the ledger reaches the head its last write recorded
        beside it (ledger.jsonl.head), so a line cut off its end is named.
        Prints the entries and the head's hash. Exit 0 when all holds, 1
        naming the first line that does not, 2 on a usage error. Until it
        passes, the workspace takes no write.
chain   chains a ledger written before billsnap chained it, the one write that
        chains: each line kept byte for byte, the file as it was kept beside
        it as ledger.jsonl.unchained, its head recorded. It refuses (exit 1) a
        ledger with any line chained already, or whose head was ever
        recorded: it upgrades, it never blesses an edit. Exit 0 when chained
        (or empty), 2 on a usage error.

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
	fmt.Fprintf(env.stdout, "ledger %s: %s, the chain holds; head %s; %s\n", l.Path(), plural.Irregular(head.Entries, "entry", "entries"), head.Hash, recorded(head))
	return nil
}

// recorded says how the ledger stands to the head recorded beside it.
func recorded(h ledger.Head) string {
	switch {
	case h.Mark == nil:
		return "no head recorded yet (a store from before the head): the next write records it"
	case h.Ahead > 0:
		return fmt.Sprintf("%s after the head recorded at %s (seq %d): a write cut short before it recorded its head; the next write records it",
			plural.Of(h.Ahead, "line"), h.Mark.At.Format(time.RFC3339), h.Mark.Seq)
	}
	return fmt.Sprintf("the head recorded at %s (seq %d) reached", h.Mark.At.Format(time.RFC3339), h.Mark.Seq)
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
		fmt.Fprintf(env.stdout, "ledger %s: empty, nothing to chain\n", l.Path())
		return nil
	}
	fmt.Fprintf(env.stdout, "ledger %s: %s chained; the ledger as it was is %s.unchained\n", l.Path(), plural.Of(n, "line"), l.Path())
	return nil
}
