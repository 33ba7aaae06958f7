package hostile

import (
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
