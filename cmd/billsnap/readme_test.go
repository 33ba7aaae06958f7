//go:build heavy

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/internal/testtools"
)

// readmeExample is one "$ command" of README.md's sandbox examples with the
// output the README shows for it.
type readmeExample struct{ cmd, want string }

func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(b), "<!-- sandbox-examples -->")
	block, _, _ = strings.Cut(block, "<!-- /sandbox-examples -->")
	var ex []readmeExample
	for _, line := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(line, "$ "):
			ex = append(ex, readmeExample{cmd: line[2:]})
		case strings.HasPrefix(line, "```") || len(ex) == 0:
		default:
			ex[len(ex)-1].want += line + "\n"
		}
	}
	if len(ex) < 5 {
		t.Fatalf("README has %d sandbox examples", len(ex))
	}
	return ex
}

// The README's curl examples answer as shown, against the sandbox started as
// the README starts it.
func TestReadmeSandboxExamples(t *testing.T) {
	t.Parallel()
	testtools.Require(t, "curl", "curl")
	base, front := startSandboxCommand(t, "--api-key", "sandbox-key")
	for _, ex := range readmeExamples(t) {
		cmd := exec.Command("bash", "-c", ex.cmd)
		cmd.Env = append(os.Environ(), "BILLSNAP_BASE_URL="+base, "BILLSNAP_FRONT_URL="+front)
		out, err := cmd.CombinedOutput()
		got := strings.TrimSpace(strings.ReplaceAll(string(out), base, "http://127.0.0.1:8080"))
		if err != nil || got != strings.TrimSpace(ex.want) {
			t.Errorf("$ %s\n got: %s (err %v)\nwant: %s", ex.cmd, got, err, ex.want)
		}
	}
}
