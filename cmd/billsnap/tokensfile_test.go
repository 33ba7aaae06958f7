package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/job"
)

// A tokens file that group or others may write is refused by serve and
// check-config: exit 2, one line naming the file and its mode, as sshd
// refuses such a key.
func TestAWritableTokensFileIsAUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	os.WriteFile(users, []byte("dana: "+strings.Repeat("ab", 32)+"\n"), 0o600)
	os.Chmod(users, 0o664)
	cfg := filepath.Join(dir, "billsnap.yaml")
	os.WriteFile(cfg, []byte("base_url: https://b.example.com\nfront_url: https://f.example.com\nout: "+dir+
		"\nworkspace:\n  identity: tokens\n  tokens_file: "+users+"\n"), 0o600)
	want := fmt.Sprintf("config key workspace.tokens_file: %s may be written by group or others (mode 0664)", users)
	for _, args := range [][]string{{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, {"check-config", "--config", cfg}} {
		var out, errb bytes.Buffer
		code := e2etest.RunWith(context.Background(), args, &out, &errb, func(k string) string {
			return map[string]string{"BILLSNAP_API_KEY": "k-123456"}[k]
		})
		if code != job.ExitUsage || !strings.Contains(errb.String(), want) {
			t.Errorf("%s: exit %d\n%s%s\nwant %q", args[0], code, out.String(), errb.String(), want)
		}
	}
}
