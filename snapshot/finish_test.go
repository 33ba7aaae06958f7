package snapshot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/billsnap/billsnap/sandbox"
	"github.com/billsnap/billsnap/sandbox/sandboxtest"
)

// A publish that fails after the manifest (its point of no return) leaves
// the snapshot and its staging for the next run, which publishes it: here
// an incomplete snapshot whose tree could not be switched.
func TestAPublishCutShortAfterTheManifestIsFinished(t *testing.T) {
	t.Parallel()
	drifting := sandboxtest.Start(t, sandbox.Options{Seed: 49, Customers: 20}, "totalcount=Contacts")
	cfg := testConfig(drifting, t.TempDir())
	s := openStore(t, cfg)
	link := filepath.Join(cfg.Out, "incomplete")
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatal(err)
	}
	// The incomplete tree's link is not a link: switching it fails.
	os.Remove(link)
	if err := os.WriteFile(link, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := takeWith(t, s, cfg); err == nil {
		t.Fatal("the publish did not fail")
	}
	s.Close()
	os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, cfg)
	s.Close()
	db := readDB(t, cfg)
	if got := statuses(t, db); len(got) != 1 || got[0] != StatusIncomplete {
		t.Fatalf("snapshots after the next run: %v", got)
	}
	want := drifting.AnswerKey().Tables["customers"].Count
	if n := count(t, db, "SELECT count(*) FROM incomplete_customers"); n != want {
		t.Errorf("the incomplete snapshot's customers: %d, want %d", n, want)
	}
}
