package usage_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/billsnap/billsnap/usage"
)

// A usage error says what the caller got wrong, as given, and is found
// through any wrapping, keeping what it wraps.
func TestAUsageErrorIsFoundAndKeepsItsCause(t *testing.T) {
	err := usage.Errorf("--format %q: want %s", "xml", "table, csv")
	if err.Error() != `--format "xml": want table, csv` {
		t.Errorf("message %q", err)
	}
	wrapped := usage.Wrap(fs.ErrNotExist)
	var u usage.Error
	if !errors.As(errors.Join(errors.New("opening the store"), wrapped), &u) || !errors.Is(wrapped, fs.ErrNotExist) {
		t.Errorf("not found through the join, or its cause lost: %v", wrapped)
	}
	if errors.As(errors.New("plain"), &u) {
		t.Error("a plain error is taken for a usage error")
	}
}
