package fix

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/job"
	"github.com/billsnap/billsnap/sandbox"
)

// decodeLines decodes one JSON object per line into T.
func decodeLines[T any](t *testing.T, out string) []T {
	t.Helper()
	var all []T
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		all = append(all, v)
	}
	return all
}

// referenceOf is the ReferenceID of charge id in the sandbox.
func referenceOf(t *testing.T, srv *sandbox.Server, id string) string {
	t.Helper()
	for _, c := range srv.Dataset().Charges {
		if c.ID == id {
			return c.ReferenceID
		}
	}
	t.Fatalf("no charge %s in the sandbox", id)
	return ""
}

// setQuantity sets a reference's quantity through the service's API (§4.3).
func setQuantity(t *testing.T, srv *sandbox.Server, ref string, q int) {
	t.Helper()
	body, _ := json.Marshal(map[string]int{"quantity": q})
	req, _ := http.NewRequest(http.MethodPut, srv.BaseURL()+"/v3/subscriptioncharges/"+ref+"/setamountbyreferenceid", bytes.NewReader(body))
	req.Header.Set("Authorization", extract.NewSecret(e2etest.ExportKey).Authorization())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("setamountbyreferenceid %s: %d", ref, resp.StatusCode)
	}
}

// planned writes fix plan's plan of the store at dir, reconciled, to
// dir/plan.json; it returns the file and the plan.
func planned(t *testing.T, srv *sandbox.Server, dir string) (string, string) {
	t.Helper()
	code, plan, stderr := e2etest.CLI(t, srv, "fix", "plan", "--out", dir)
	if code != job.ExitOK {
		t.Fatalf("fix plan: %d %s", code, stderr)
	}
	path := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, plan
}
