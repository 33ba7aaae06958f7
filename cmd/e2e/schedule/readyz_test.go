package schedule

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// get answers GET http://addr+path: its status and body.
func get(t *testing.T, addr, path string) (int, string) {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String()
}
