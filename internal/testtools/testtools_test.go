package testtools

import (
	"fmt"
	"strings"
	"testing"
)

// fatal records what a test would fail with.
type fatal struct {
	testing.TB
	msg string
}

func (f *fatal) Helper()                        {}
func (f *fatal) Fatalf(format string, a ...any) { f.msg = fmt.Sprintf(format, a...) }

func TestAMissingProgramFailsNamingIt(t *testing.T) {
	f := &fatal{TB: t}
	if path := Require(f, "billsnap-test-pkg", "billsnap-no-such-program"); path != "" {
		t.Fatalf("found %q", path)
	}
	if !strings.Contains(f.msg, "billsnap-no-such-program") || !strings.Contains(f.msg, "billsnap-test-pkg") {
		t.Errorf("the failure %q does not name the program and its package", f.msg)
	}
	if path := Require(t, "coreutils", "billsnap-no-such-program", "ls"); !strings.HasSuffix(path, "/ls") {
		t.Errorf("ls: %q", path)
	}
	f = &fatal{TB: t}
	if path := RequirePython(f, "billsnap_no_such_module", "python3-billsnap"); path != "" {
		t.Fatalf("found %q", path)
	}
	if !strings.Contains(f.msg, "billsnap_no_such_module") || !strings.Contains(f.msg, "python3-billsnap") {
		t.Errorf("the failure %q does not name the module and its package", f.msg)
	}
}
