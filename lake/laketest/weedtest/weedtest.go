//go:build lake

// Package weedtest runs SeaweedFS's all-in-one server (weed mini) for a
// test: a real S3 gateway and a real Iceberg REST catalog, whose table
// buckets are S3 Tables' (requests signed with SigV4, service s3tables).
//
// The weed binary is not built or installed by a test: .ci/run builds it
// at a pinned version from the Go module proxy and names it in
// $BILLSNAP_WEED. Without it a test fails when CI=true and is skipped
// otherwise.
package weedtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/lake/laketest"
)

// Env names the weed binary the tests run.
const Env = "BILLSNAP_WEED"

// Bucket is the plain S3 bucket Start creates, for the lake (parquet.url:
// a table bucket takes no object but a table's); TableBucket the table
// bucket its Iceberg catalog serves, the warehouse of a rest catalog.
const (
	Bucket      = "lake"
	TableBucket = "warehouse"
)

// startup bounds how long weed mini has to answer.
const startup = 90 * time.Second

// Server is a running weed mini.
type Server struct {
	// S3 is its S3 gateway's endpoint, Iceberg its REST catalog's URL
	// (both http://127.0.0.1:PORT).
	S3, Iceberg string
	// Dir holds its data and its log (weed.log).
	Dir string
}

// Binary is the weed binary to run: $BILLSNAP_WEED. When it is not set or
// not there the test fails under CI=true and is skipped otherwise.
func Binary(t testing.TB) string {
	t.Helper()
	path := os.Getenv(Env)
	why := ""
	if path == "" {
		why = "$" + Env + " is not set: this test runs SeaweedFS's weed, which .ci/run builds (tests never build or install software)"
	} else if _, err := os.Stat(path); err != nil {
		why = fmt.Sprintf("$%s: %v (.ci/run builds weed there)", Env, err)
	}
	if why == "" {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// Start runs weed mini in a temporary directory on free ports of the
// loopback, with the bucket Bucket and the table bucket TableBucket, its
// identity the test credentials of laketest.Credentials; it returns once
// its buckets are made and its S3 gateway and catalog answer, and stops
// it when the test ends. The test's process needs laketest.Credentials in
// its environment to reach it.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	ports := freePorts(t, 11)
	names := []string{"master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
		"filer.port.grpc", "s3.port", "s3.port.grpc", "s3.port.iceberg", "admin.port", "admin.port.grpc"}
	args := []string{"mini", "-dir=" + dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-webdav=false", "-admin.ui=false", "-admin.port.legacy=0", "-s3.port.lance=0",
		"-master.telemetry=false", "-bucket=" + Bucket, "-tableBucket=" + TableBucket}
	for i, n := range names {
		args = append(args, "-"+n+"="+strconv.Itoa(ports[i]))
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range laketest.Credentials(dir) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	log, err := os.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); watch(out, log, ready) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		wg.Wait()
		log.Close()
	})
	s := &Server{S3: fmt.Sprintf("http://127.0.0.1:%d", ports[6]), Iceberg: fmt.Sprintf("http://127.0.0.1:%d", ports[8]), Dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), startup)
	defer cancel()
	if err := s.wait(ctx, ready); err != nil {
		tail, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
		t.Fatalf("weed mini did not start: %v\n%s", err, lastLines(string(tail), 30))
	}
	return s
}

// URL is the parquet.url of prefix in the plain bucket, as laketest.Serve
// gives gofakes3's.
func (s *Server) URL(prefix string) string {
	return "s3://" + Bucket + "/" + prefix + "?endpoint=" + s.S3 + "&region=us-east-1&use_path_style=true&disable_https=true"
}

// marker is the line weed mini prints once every component runs and the
// buckets asked for are made.
const marker = "All enabled components are running and ready to use"

// watch copies weed's standard output to log, closing ready at marker.
func watch(out io.Reader, log io.Writer, ready chan struct{}) {
	sc := bufio.NewScanner(out)
	seen := false
	for sc.Scan() {
		fmt.Fprintln(log, sc.Text())
		if !seen && strings.Contains(sc.Text(), marker) {
			seen = true
			close(ready)
		}
	}
}

// wait returns once weed has said it is ready and its S3 gateway and
// catalog answer HTTP, or ctx ends.
func (s *Server) wait(ctx context.Context, ready chan struct{}) error {
	select {
	case <-ready:
	case <-ctx.Done():
		return fmt.Errorf("no %q line within %s", marker, startup)
	}
	for _, u := range []string{s.S3 + "/", s.Iceberg + "/v1/config"} {
		if err := answers(ctx, u); err != nil {
			return err
		}
	}
	return nil
}

// answers polls u until it answers HTTP (any status), or ctx ends.
func answers(ctx context.Context, u string) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %v", u, err)
		case <-tick.C:
		}
	}
}

// freePorts are n ports of the loopback free a moment ago, all different.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
