package store

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
)

// holdEnv names the read model a helper process holds open.
const holdEnv = "BILLSNAP_TEST_HOLD"

// TestHelperHoldsTheReadModel is not a test: run as a child process with
// BILLSNAP_TEST_HOLD set, it is an analyst's session. It opens the read
// model read-only and keeps it open until its stdin closes, answering each
// line with the latest snapshot and the rows of latest_customers it sees.
func TestHelperHoldsTheReadModel(t *testing.T) {
	path := os.Getenv(holdEnv)
	if path == "" {
		t.Skip("a helper process of TestAReaderHoldingTheStoreStopsNoJob")
	}
	db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	db.SetMaxOpenConns(1)
	sc := bufio.NewScanner(os.Stdin)
	for {
		var id string
		var n int
		err := db.QueryRow("SELECT (SELECT id FROM latest_snapshot), (SELECT count(*) FROM latest_customers)").Scan(&id, &n)
		if err != nil {
			fmt.Println("error:", err)
		} else {
			fmt.Printf("latest=%s customers=%d\n", id, n)
		}
		if !sc.Scan() {
			os.Exit(0)
		}
	}
}

// reader is a helper process holding the read model open.
type reader struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func holdReadModel(t *testing.T, dir string) *reader {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldsTheReadModel$")
	cmd.Env = append(os.Environ(), holdEnv+"="+filepath.Join(dir, "billsnap.duckdb"), e2etest.AsMainEnv+"=")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return &reader{cmd: cmd, in: in, out: bufio.NewScanner(out)}
}

// ask has the reader query the model it holds, and returns its answer.
func (r *reader) ask(t *testing.T) string {
	t.Helper()
	if _, err := io.WriteString(r.in, "q\n"); err != nil {
		t.Fatal(err)
	}
	if !r.out.Scan() {
		t.Fatal("the reader process ended")
	}
	return r.out.Text()
}

// openFile is the path, under /proc, of the reader process's descriptor
// of the file it opened as path (since replaced).
func (r *reader) openFile(t *testing.T, path string) string {
	t.Helper()
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", r.cmd.Process.Pid))
	for _, fd := range fds {
		if target, _ := os.Readlink(fd); strings.TrimSuffix(target, " (deleted)") == path {
			return fd
		}
	}
	t.Fatalf("the reader process has no descriptor of %s", path)
	return ""
}

// readAnswer is what a reader that opens the read model of dir now sees.
func readAnswer(t *testing.T, dir string) string {
	t.Helper()
	db := e2etest.OpenDB(t, dir)
	defer db.Close()
	var id string
	var n int
	if err := db.QueryRow("SELECT (SELECT id FROM latest_snapshot), (SELECT count(*) FROM latest_customers)").Scan(&id, &n); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("latest=%s customers=%d", id, n)
}
