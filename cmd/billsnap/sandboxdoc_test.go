//go:build heavy

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/internal/testtools"
)

// sandboxExample is one "$ command" of docs/sandbox.md's examples with the
// output the document shows for it.
type sandboxExample struct{ cmd, want string }

func sandboxExamples(t *testing.T) []sandboxExample {
	t.Helper()
	b, err := os.ReadFile("../../docs/sandbox.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(b), "<!-- sandbox-examples -->")
	block, _, _ = strings.Cut(block, "<!-- /sandbox-examples -->")
	var ex []sandboxExample
	for _, line := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(line, "$ "):
			ex = append(ex, sandboxExample{cmd: line[2:]})
		case strings.HasPrefix(line, "```") || len(ex) == 0:
		default:
			ex[len(ex)-1].want += line + "\n"
		}
	}
	if len(ex) < 5 {
		t.Fatalf("docs/sandbox.md has %d examples", len(ex))
	}
	return ex
}

// docs/sandbox.md's curl examples answer as shown, against the sandbox
// started as the document starts it.
func TestSandboxDocExamples(t *testing.T) {
	t.Parallel()
	testtools.Require(t, "curl", "curl")
	base, front := startSandboxCommand(t, "--api-key", "sandbox-key")
	for _, ex := range sandboxExamples(t) {
		cmd := exec.Command("bash", "-c", ex.cmd)
		cmd.Env = append(os.Environ(), "BILLSNAP_BASE_URL="+base, "BILLSNAP_FRONT_URL="+front)
		out, err := cmd.CombinedOutput()
		got := strings.TrimSpace(strings.ReplaceAll(string(out), base, "http://127.0.0.1:8081"))
		if err != nil || got != strings.TrimSpace(ex.want) {
			t.Errorf("$ %s\n got: %s (err %v)\nwant: %s", ex.cmd, got, err, ex.want)
		}
	}
}
