package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/billsnap/billsnap/cmd/internal/lakeprogram"
)

// lakeEnv is the variable that gives the export children the parquet.url
// of the S3-compatible store.
const lakeEnv = "BILLSNAP_BENCH_LAKE"

// startLake serves an S3-compatible store in a child process and puts its
// parquet.url and test credentials in the environment the export children
// inherit.
func startLake(ctx context.Context) (func(), error) {
	removeLake, err := findLakeProgram(ctx)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "child", "s3", "-", "-")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		removeLake()
		return nil, err
	}
	stop := func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait(); removeLake() }
	var url string
	if _, err := fmt.Fscan(bufio.NewReader(stdout), &url); err != nil {
		stop()
		return nil, fmt.Errorf("the S3 store did not start: %w", err)
	}
	os.Setenv(lakeEnv, "s3://bench/snapshots?endpoint="+url+"&region=us-east-1&use_path_style=true&disable_https=true")
	os.Setenv("AWS_ACCESS_KEY_ID", "bench")
	os.Setenv("AWS_SECRET_ACCESS_KEY", "bench")
	return stop, nil
}

// serveLake serves gofakes3 on an in-memory backend with the bucket
// "bench", prints its URL, and serves until ctx ends.
func serveLake(ctx context.Context) error {
	backend := s3mem.New()
	if err := backend.CreateBucket("bench"); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: gofakes3.New(backend).Server()}
	go srv.Serve(ln)
	fmt.Println("http://" + ln.Addr().String())
	<-ctx.Done()
	return srv.Close()
}

// findLakeProgram makes sure the export children find billsnap-lake: on
// PATH or beside the bench, or else built from this repository into a
// temporary directory put first on PATH (the bench runs from the
// repository's root: go run ./cmd/billsnap-bench), which the function it
// returns removes.
func findLakeProgram(ctx context.Context) (func(), error) {
	if _, err := lakeprogram.Find(); err == nil {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "billsnap-bench-lake-")
	if err != nil {
		return nil, err
	}
	remove := func() { os.RemoveAll(dir) }
	out, err := exec.CommandContext(ctx, "go", "build", "-tags", "lake", "-o", filepath.Join(dir, lakeprogram.Name), "./cmd/"+lakeprogram.Name).CombinedOutput()
	if err != nil {
		remove()
		return nil, fmt.Errorf("building %s for --lake: %v: %s", lakeprogram.Name, err, out)
	}
	return remove, os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}
