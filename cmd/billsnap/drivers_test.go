//go:build !race

package main

// The tests publish in-process: the test binary links the lake
// (lakepublish with lake/iceberg's catalogs, and lake/drivers), where
// billsnap itself runs billsnap-lake (newEnv). A race build links none of
// it (drivers_race_test.go): CI's race step leaves out the tests that
// publish to object storage (lake_test.go), so that it does not compile
// the clouds' SDKs, Arrow and iceberg-go a second time, with -race.
import (
	"os"

	"github.com/billsnap/billsnap/cmd/internal/lakepublish"
	"github.com/billsnap/billsnap/lake/iceberg"
	"github.com/billsnap/billsnap/lake/laketest"

	_ "github.com/billsnap/billsnap/lake/drivers"
)

// testLake is the lake the tests' runs publish to: linked in.
func testLake() lakeLink { return lakepublish.Lake{Catalogs: iceberg.Open} }

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
