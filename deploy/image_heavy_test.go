//go:build heavy

package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The image names the test makes and builds; the base images are its own,
// so that a machine's other images are never touched.
const (
	baseImage    = "localhost/billsnap-test/bookworm"
	builderImage = "localhost/billsnap-test/golang" // tagged with the Go version
	appImage     = "localhost/billsnap-test/billsnap"
)

// The image builds from the repository with no registry at all, over the
// base images deploy/base-images.sh makes (Debian bookworm by debootstrap,
// the Go toolchain this test runs with; .ci/run runs it), and its demo runs inside it as its own non-root user:
// the programs link, DuckDB finds what it needs in the slim runtime, and
// the store is the volume. The image's configuration is what the Dockerfile
// promises (user, volume, default command, healthcheck), and the default
// command runs, its healthcheck passing, until SIGTERM stops it.
func TestTheImageBuildsAndItsDemoRuns(t *testing.T) {
	tools(t)
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	base, builder := baseImages(t)

	start := time.Now()
	modules := strings.TrimSpace(output(t, "go", "env", "GOMODCACHE"))
	// --layers=false: no intermediate image is kept (the builder's stage
	// is over a gigabyte); the Go caches are the Dockerfile's cache mounts.
	run(t, "podman", "build", "--isolation", "chroot", "--format", "docker", "--pull=never", "--layers=false",
		"--build-arg", "GO_IMAGE="+builder, "--build-arg", "RUNTIME_IMAGE="+base,
		// The modules come from this machine's module cache served as a
		// module proxy (GOPROXY=file://), each checked against go.sum.
		"--build-arg", "GOPROXY=file:///goproxy", "-v", filepath.Join(modules, "cache", "download")+":/goproxy:ro",
		"-t", appImage, "-f", filepath.Join(repo, "Dockerfile"), repo)
	t.Logf("image built in %s", time.Since(start).Round(time.Second))
	t.Cleanup(func() { exec.Command("podman", "rmi", "--force", appImage).Run() })

	img := checkConfig(t)
	root := exportRootfs(t)
	checkDemo(t, root)
	checkSchedule(t, root, img)
}

// image is what the test reads of the image's configuration.
type image struct {
	Config struct {
		User       string
		Volumes    map[string]struct{}
		Entrypoint []string
		Cmd        []string
	}
	HealthCheck *struct{ Test []string } // podman's spelling of a Docker image's healthcheck
}

// tools skips the test when a program it runs is missing on a developer's
// machine, and fails it in CI (CI=true), where .ci/run installs them;
// building images as this test does needs root.
func tools(t *testing.T) {
	t.Helper()
	var missing []string
	for _, p := range []string{"podman", "chroot", "tar"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	switch {
	case len(missing) > 0:
		unready(t, fmt.Sprintf("this test needs %s, not on PATH: install the Debian package podman (.ci/run does; tests never install software)", strings.Join(missing, ", ")))
	case os.Geteuid() != 0:
		unready(t, "this test needs root: podman build and chroot")
	}
}

// baseImages returns the runtime's base image (Debian bookworm, minbase)
// and the builder's (the base with a C toolchain, git and this test's Go
// toolchain), which deploy/base-images.sh makes; a missing one fails the
// test in CI and skips it elsewhere, naming the script.
func baseImages(t *testing.T) (base, builder string) {
	t.Helper()
	base = baseImage
	builder = builderImage + ":" + strings.TrimPrefix(runtime.Version(), "go") + "-bookworm"
	for _, image := range []string{base, builder} {
		if exec.Command("podman", "image", "exists", image).Run() != nil {
			unready(t, fmt.Sprintf("podman has no image %s: run deploy/base-images.sh (.ci/run does; tests never install software)", image))
		}
	}
	return base, builder
}

// unready fails the test in CI (CI=true), where .ci/run readies the
// machine, and skips it elsewhere, saying why.
func unready(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// checkConfig checks the image's configuration: the user, the volume, the
// programs as entrypoint and schedule as the default command, the
// healthcheck.
func checkConfig(t *testing.T) image {
	t.Helper()
	var images []image
	raw := output(t, "podman", "image", "inspect", appImage)
	if err := json.Unmarshal([]byte(raw), &images); err != nil || len(images) != 1 {
		t.Fatalf("podman image inspect: %v\n%s", err, raw)
	}
	cfg, health := images[0].Config, images[0].HealthCheck
	if cfg.User != "billsnap" {
		t.Errorf("user %q, want billsnap", cfg.User)
	}
	if _, ok := cfg.Volumes["/var/lib/billsnap"]; !ok {
		t.Errorf("volumes %v, want /var/lib/billsnap", cfg.Volumes)
	}
	if got := strings.Join(append(cfg.Entrypoint, cfg.Cmd...), " "); !strings.HasPrefix(got, "billsnap schedule ") {
		t.Errorf("command %q, want billsnap schedule", got)
	}
	if health == nil || !strings.Contains(strings.Join(health.Test, " "), "/healthz") {
		t.Errorf("healthcheck %+v, want one asking /healthz", health)
	}
	return images[0]
}

// checkSchedule runs the image's default command (billsnap schedule) in its
// file system with a configuration mounted where the image expects it, and
// checks that the image's healthcheck passes while it runs, that it stops
// on SIGTERM with exit 0, and that the healthcheck fails once it is gone.
func checkSchedule(t *testing.T, root string, img image) {
	t.Helper()
	if img.HealthCheck == nil || len(img.HealthCheck.Test) < 2 || img.HealthCheck.Test[0] != "CMD" {
		t.Fatalf("healthcheck %+v: want CMD and a command", img.HealthCheck)
	}
	if ln, err := net.Listen("tcp", "127.0.0.1:9187"); err != nil {
		t.Fatalf("the healthcheck's port 9187 is taken on this machine: %v", err)
	} else {
		ln.Close()
	}
	// Nothing fires within the test: @daily, against no service.
	config := "base_url: http://127.0.0.1:1\nfront_url: http://127.0.0.1:1\nout: /var/lib/billsnap\n" +
		"schedules:\n  - {name: nightly, spec: \"@daily\", job: run}\n"
	if err := os.WriteFile(filepath.Join(root, "etc/billsnap/billsnap.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	health := func() error {
		out, err := inImage(root, img.HealthCheck.Test[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	sched := inImage(root, append(img.Config.Entrypoint, img.Config.Cmd...)...)
	sched.Env = append(sched.Env, "BILLSNAP_API_KEY=not-used")
	var log bytes.Buffer
	sched.Stdout, sched.Stderr = &log, &log
	if err := sched.Start(); err != nil {
		t.Fatal(err)
	}
	err := health()
	for deadline := time.Now().Add(30 * time.Second); err != nil && time.Now().Before(deadline); err = health() {
		time.Sleep(200 * time.Millisecond) // the real program starting: no clock of ours to fake
	}
	if err != nil {
		sched.Process.Kill()
		sched.Wait()
		t.Fatalf("the healthcheck fails while billsnap schedule runs: %v\n%s", err, tail(log.Bytes()))
	}
	sched.Process.Signal(syscall.SIGTERM)
	if err := sched.Wait(); err != nil {
		t.Errorf("billsnap schedule on SIGTERM: %v, want exit 0\n%s", err, tail(log.Bytes()))
	}
	if health() == nil {
		t.Errorf("the healthcheck passes with billsnap schedule stopped")
	}
}

// exportRootfs unpacks the image's file system into a temporary directory:
// podman run cannot set resource limits on these machines, so the test
// enters it with chroot.
func exportRootfs(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	id := strings.TrimSpace(output(t, "podman", "create", appImage))
	defer exec.Command("podman", "rm", "--force", id).Run()
	exp := exec.Command("sh", "-c", `podman export "$1" | tar -x -C "$2"`, "sh", id, root)
	if out, err := exp.CombinedOutput(); err != nil {
		t.Fatalf("podman export: %v\n%s", err, tail(out))
	}
	return root
}

// checkDemo runs billsnap demo in the image's file system as the image's
// user, the store in the volume, and checks its exit and what it printed;
// and that billsnap-lake runs beside it.
func checkDemo(t *testing.T, root string) {
	t.Helper()
	out, err := inImage(root, "billsnap", "demo", "--out", "/var/lib/billsnap/demo", "--progress", "none").CombinedOutput()
	if err != nil {
		t.Fatalf("billsnap demo in the image: %v\n%s", err, tail(out))
	}
	for _, want := range []string{"sandbox: seed 1", "Reports:", "query --out /var/lib/billsnap/demo"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the demo's output lacks %q:\n%s", want, tail(out))
		}
	}
	if _, err := os.Stat(filepath.Join(root, "var/lib/billsnap/demo/.billsnap")); err != nil {
		t.Errorf("the demo's store is not in the volume: %v", err)
	}
	for _, prog := range []string{"billsnap", "billsnap-lake"} {
		out, err := inImage(root, prog, "version").CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("commit ")) {
			t.Errorf("%s version in the image: %v\n%s", prog, err, tail(out))
		}
	}
}

// inImage is a program of the image run in its file system root as the
// user billsnap, in its working directory, with its environment.
func inImage(root string, args ...string) *exec.Cmd {
	shell := []string{"--userspec=billsnap:billsnap", root, "/bin/sh", "-c", `cd /var/lib/billsnap && exec "$@"`, "sh"}
	cmd := exec.Command("chroot", append(shell, args...)...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/billsnap"}
	return cmd
}

// run runs a command, failing the test with its output's tail.
func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(out))
	}
}

// output runs a command and returns its standard output.
func output(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// tail is the last 40 lines of out.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}
