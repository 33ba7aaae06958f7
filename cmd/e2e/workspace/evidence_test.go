package workspace

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/internal/syncbuf"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
)

// closeToken is the workspace user's token in these tests.
const closeToken = "dana-token-0123456789abcdef"

// closedStore exports the sandbox, reconciles last month and, in billsnap
// serve with a token each, signs it off, closes it and waives one of its
// findings after the close. It gives the sandbox, the store, the config
// file and the period.
func closedStore(t *testing.T) (*sandbox.Server, string, string, string) {
	t.Helper()
	srv, dir := e2etest.Exported(t, e2etest.ExportedOptions)
	period := time.Now().UTC().AddDate(0, -1, 0).Format("2006-01")
	if code, _, stderr := e2etest.CLI(t, srv, "reconcile", "--out", dir, "--period", period); code != job.ExitMaterial && code != job.ExitOK {
		t.Fatalf("reconcile: %d %s", code, stderr)
	}
	sum := sha256.Sum256([]byte(closeToken))
	users := filepath.Join(t.TempDir(), "users")
	os.WriteFile(users, []byte("dana: "+hex.EncodeToString(sum[:])+"\n"), 0o600)
	cfg := filepath.Join(t.TempDir(), "billsnap.yaml")
	os.WriteFile(cfg, []byte("out: "+dir+"\nworkspace:\n  identity: tokens\n  tokens_file: "+users+
		"\n  roles: {waive: [dana], signoff: [dana], close: [dana]}\n"), 0o600)
	base, stop := serveIn(t, "--config", cfg, "--listen", "127.0.0.1:0")
	defer stop()
	explainFlux(t, base, period)
	api(t, base, "POST", "/api/signoffs", `{"period": "`+period+`", "role": "controller"}`, http.StatusCreated, nil)
	api(t, base, "POST", "/api/periods/"+period+"/close", `{"comment": "month end"}`, http.StatusCreated, nil)
	var findings []struct {
		Rule     string `json:"rule"`
		EntityID string `json:"entity_id"`
	}
	api(t, base, "GET", "/api/findings?period="+period+"&status=open", "", http.StatusOK, &findings)
	if len(findings) == 0 {
		t.Fatalf("period %s has no open finding", period)
	}
	api(t, base, "POST", "/api/waivers", `{"rule": "`+findings[0].Rule+`", "entity_id": "`+findings[0].EntityID+
		`", "reason": "credit note", "owner": "dana", "expires": "2099-12-31"}`, http.StatusCreated, nil)
	return srv, dir, cfg, period
}

// serveIn runs billsnap serve with args until stop, and gives its URL.
func serveIn(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := cli.Run(ctx, append([]string{"serve"}, args...), io.Discard, pw, cli.Options{Tune: e2etest.OneThread})
		pw.Close()
		done <- code
	}()
	var logs syncbuf.Buffer
	base := e2etest.ReadURL(t, pr, &logs)
	return base, func() {
		cancel()
		if code := <-done; code != job.ExitOK {
			t.Errorf("serve: exit %d\n%s", code, logs.String())
		}
	}
}

// api sends one request as the workspace's user and wants status.
func api(t *testing.T, base, method, path, body string, status int, out any) {
	t.Helper()
	req, _ := http.NewRequest(method, strings.TrimSuffix(base, "/")+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+closeToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// rezip copies the zip at src to dst with the entry name changed by edit.
func rezip(t *testing.T, src, dst, name string, edit func([]byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range zr.File {
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name == name {
			data = edit(data)
		}
		w, _ := zw.Create(f.Name)
		w.Write(data)
	}
	zw.Close()
	os.WriteFile(dst, b.Bytes(), 0o644)
}

// rebag copies the pack at src to dst with the file rel of the bag
// changed by edit, and its manifests and Payload-Oxum recomputed, as a
// forger would.
func rebag(t *testing.T, src, dst, rel string, edit func([]byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files, top := map[string][]byte{}, ""
	for _, f := range zr.File {
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		top, f.Name, _ = strings.Cut(f.Name, "/")
		files[f.Name] = data
	}
	files[rel] = edit(files[rel])
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	var manifest, tags strings.Builder
	octets, n := 0, 0
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if strings.HasPrefix(p, "data/") {
			fmt.Fprintf(&manifest, "%s  %s\n", sum(files[p]), p)
			octets, n = octets+len(files[p]), n+1
		}
	}
	files["manifest-sha256.txt"] = []byte(manifest.String())
	files["bag-info.txt"] = regexp.MustCompile(`Payload-Oxum: .*`).ReplaceAll(files["bag-info.txt"], fmt.Appendf(nil, "Payload-Oxum: %d.%d", octets, n))
	for _, p := range []string{"bagit.txt", "bag-info.txt", "manifest-sha256.txt"} {
		fmt.Fprintf(&tags, "%s  %s\n", sum(files[p]), p)
	}
	files["tagmanifest-sha256.txt"] = []byte(tags.String())
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		w, _ := zw.Create(top + "/" + p)
		w.Write(files[p])
	}
	zw.Close()
	os.WriteFile(dst, b.Bytes(), 0o644)
}

func flipByte(b []byte) []byte {
	out := bytes.Clone(b)
	out[len(out)/2] ^= 0x01
	return out
}
