package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A field of the spec's with a wrong type is a contract break: exit 1,
// naming the collection, page, URL, record and field, nothing published.
func TestAContractFieldOfAWrongTypeStopsTheExport(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 2, Customers: 20}, `set=SubscriptionCharges.Amount@150:"abc"`)
	dir := t.TempDir()
	code, _, stderr := e2etest.CLI(t, srv, "export", "--out", dir, "--progress", "none")
	id := srv.Dataset().Charges[149].ID
	want := "collection subscription_charges, page 2, GET " + srv.URL + "/SubscriptionCharges/?page=2: record " + id +
		`, field Amount: want a decimal number, got "abc"`
	if code != job.ExitFailure || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %s\nwant %s", code, stderr, want)
	}
	checkNothingPublished(t, dir)
}

// A field the service renames lands in its column when the configuration
// maps it; check-config checks the mapping.
func TestARenamedFieldMappedInTheConfigLands(t *testing.T) {
	t.Parallel()
	srv := sandboxtest.Start(t, sandbox.Options{Seed: 2, Customers: 20}, "rename=Invoices.InvoiceNumber:InvoiceNo")
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "billsnap.yml")
	os.WriteFile(cfg, []byte("fields:\n  invoices:\n    invoice_number: InvoiceNo\n"), 0o644)
	if code, out, stderr := e2etest.CLI(t, srv, "check-config", "--config", cfg); code != job.ExitOK {
		t.Fatalf("check-config: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := e2etest.CLI(t, srv, "export", "--config", cfg, "--out", dir, "--progress", "none"); code != job.ExitOK {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	var n, numbered int
	e2etest.OpenDB(t, dir).QueryRow("SELECT count(*), count(invoice_number) FILTER (WHERE invoice_number = (_raw->>'InvoiceNo')) FROM invoices WHERE snapshot_id = (SELECT id FROM latest_snapshot)").Scan(&n, &numbered)
	if n == 0 || numbered != n {
		t.Errorf("%d of %d invoices have their InvoiceNo in invoice_number", numbered, n)
	}
	os.WriteFile(cfg, []byte("fields:\n  subscription_charges:\n    amount: Quantity\n"), 0o644)
	code, _, stderr := e2etest.CLI(t, srv, "check-config", "--config", cfg)
	if code != job.ExitUsage || !strings.Contains(stderr, "config key fields.subscription_charges.amount: Amount is a field the spec defines") {
		t.Errorf("check-config of a contract field mapped: exit %d\n%s", code, stderr)
	}
}
