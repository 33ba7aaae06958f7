//go:build !race

package main

// The tests publish in-process: the test binary links the lake
// (lakepublish with lake/iceberg's catalogs, and lake/drivers), where
// billsnap itself runs billsnap-lake (newEnv). A race build links none of
// it (drivers_race_test.go): CI's race step leaves out the tests that
// publish to object storage (lake_test.go), so that it does not compile
// the clouds' SDKs, Arrow and iceberg-go a second time, with -race.
import (
	"github.com/billsnap/billsnap/cmd/internal/lakepublish"
	"github.com/billsnap/billsnap/lake/iceberg"

	_ "github.com/billsnap/billsnap/lake/drivers"
)

// testLake is the lake the tests' runs publish to: linked in.
func testLake() lakeLink { return lakepublish.Lake{Catalogs: iceberg.Open} }
