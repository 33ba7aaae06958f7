//go:build heavy

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// nextSteps are the commands the demo's output ends with.
func nextSteps(t *testing.T, out string) []string {
	t.Helper()
	_, tail, ok := strings.Cut(out, "In one shell, in this order:\n\n")
	if !ok {
		t.Fatalf("the demo prints no next steps:\n%s", out)
	}
	var steps []string
	for line := range strings.Lines(tail) {
		steps = append(steps, strings.TrimSpace(line))
	}
	return steps
}

// The demo's last lines run as printed, pasted into one shell: a sandbox
// serving the same data, against which recheck finds every finding still
// there (none gone), the fix plan's dry run sends nothing, its application
// resolves exactly the planned findings at the next run, changes shows the
// record it changed, and the workspace starts; each step ends with the
// exit code its comment says (3, material, for recheck and run), or 0.
// billsnap is installed on PATH, as the README installs it.
func TestTheDemosNextStepsRunAsPrinted(t *testing.T) {
	bin := e2etest.BinaryWithTags(t, "")
	dir := t.TempDir()
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+":/usr/bin:/bin")
	demo := exec.Command(bin, "demo", "--progress", "none", "--out", "tour")
	demo.Dir, demo.Env = dir, env
	out, err := demo.Output()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	steps := nextSteps(t, string(out))
	if len(steps) != 9 || !strings.HasPrefix(steps[0], "billsnap sandbox ") || !strings.HasPrefix(steps[8], "billsnap serve ") {
		t.Fatalf("next steps %q", steps)
	}
	var script strings.Builder // each step, then the exit code it ended with
	for i, s := range steps {
		script.WriteString(s + "\n")
		if i < len(steps)-1 {
			fmt.Fprintf(&script, "echo \"[step %d exit $?]\"\n", i)
		}
	}
	sh := exec.Command("bash", "-c", script.String())
	sh.Dir, sh.Env = dir, env
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	sh.Stdout, sh.Stderr = pw, pw
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-sh.Process.Pid, syscall.SIGTERM)
		sh.Wait()
		pw.Close()
	}()
	got := e2etest.Collect(pr)
	got.WaitFor(t, "the workspace is up", 1, 5*time.Minute)
	text := got.String()
	for _, want := range []string{" 0 gone", "dry run: 1 request would be sent, none was", "1 done, 0 done before", "# billsnap: MATERIAL (exit 3)",
		"Changes from snapshot ", " 1 updated, "} {
		if !strings.Contains(text, want) {
			t.Errorf("the next steps' output has no %q:\n%s", want, text)
		}
	}
	checkStepExits(t, steps, text)
	checkPlanResolved(t, bin, dir, env)
}

// checkStepExits checks that each step ended with the exit code its
// comment says ("# exit 3: …"), or 0 when it says none.
func checkStepExits(t *testing.T, steps []string, text string) {
	t.Helper()
	said := regexp.MustCompile(`  # exit (\d+)[ :]`)
	for i, s := range steps[:len(steps)-1] {
		want := "0"
		if m := said.FindStringSubmatch(s); m != nil {
			want = m[1]
		}
		if !strings.Contains(text, fmt.Sprintf("[step %d exit %s]", i, want)) {
			t.Errorf("step %d, %q, did not end with exit %s", i, s, want)
		}
	}
}

// checkPlanResolved checks that the findings the plan fixed are resolved in
// the latest reconciliation, and no other.
func checkPlanResolved(t *testing.T, bin, dir string, env []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var plan struct {
		Actions []struct {
			Finding struct {
				Rule     string `json:"rule"`
				EntityID string `json:"entity_id"`
			} `json:"finding"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(b, &plan); err != nil || len(plan.Actions) == 0 {
		t.Fatalf("plan.json: %v, %d actions", err, len(plan.Actions))
	}
	planned := map[string]bool{}
	for _, a := range plan.Actions {
		planned[a.Finding.Rule+"/"+a.Finding.EntityID] = true
	}
	rec := exec.Command(bin, "reconcile", "--out", "tour", "--format", "json")
	rec.Dir, rec.Env = dir, env
	out, err := rec.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != job.ExitMaterial) {
		t.Fatalf("reconcile: %v", err)
	}
	resolved := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var f struct {
			Rule     string `json:"rule"`
			EntityID string `json:"entity_id"`
			Status   string `json:"status"`
		}
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		if f.Status == "resolved" {
			resolved[f.Rule+"/"+f.EntityID] = true
		}
	}
	for k := range planned {
		if !resolved[k] {
			t.Errorf("planned finding %s is not resolved", k)
		}
	}
	for k := range resolved {
		if !planned[k] {
			t.Errorf("finding %s is resolved, though no action of the plan was for it", k)
		}
	}
}
