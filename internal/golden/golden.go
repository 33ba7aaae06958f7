// Package golden compares a test's output with a file under testdata, the
// one helper for golden files: go test -update rewrites the files (check
// the rewrite by eye before committing it).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Check compares got with testdata/name, or writes it there with -update;
// a difference fails the test and shows got.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it; check it by eye)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", path, got)
	}
}
