//go:build lake && heavy && !race

package e2etest

// The heavy tier's tests publish in-process: the test binary links the
// lake (lakepublish with lake/iceberg's catalogs, and lake/drivers), where
// billsnap itself runs billsnap-lake (cli.Main). The fast tier and a race
// build link none of it (drivers_nolake.go) and leave out the tests that
// publish to object storage (e2e/lake's lake_test.go, lakerelative_test.go),
// so that they neither compile nor link the clouds' SDKs, Arrow and
// iceberg-go into a test binary: the lake's own packages (lake/iceberg,
// lake/objects) test it in the fast tier.
import (
	"os"

	"github.com/billsnap/billsnap/cmd/internal/cli"
	"github.com/billsnap/billsnap/cmd/internal/lakepublish"
	"github.com/billsnap/billsnap/lake/iceberg"
	"github.com/billsnap/billsnap/lake/laketest"

	_ "github.com/billsnap/billsnap/lake/drivers"
)

// TestLake is the lake the tests' runs publish to: linked in.
func TestLake() cli.Lake { return lakepublish.Lake{Catalogs: iceberg.Open} }

// setLakeCredentials puts the credentials of the tests' object stores
// (laketest.Serve) in the environment, before any test runs, so that the
// tests that publish to them can run in parallel; dir holds no file. It
// takes out a CA bundle of the user's (AWS_CA_BUNDLE), a file the SDK
// would read and parse for every client, which the tests' stores, plain
// HTTP, never use.
func setLakeCredentials(dir string) {
	for k, v := range laketest.Credentials(dir) {
		os.Setenv(k, v)
	}
	os.Unsetenv("AWS_CA_BUNDLE")
}
