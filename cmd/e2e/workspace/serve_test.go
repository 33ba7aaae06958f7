package workspace

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
