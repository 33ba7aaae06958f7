//go:build heavy

package hostile

import (
	"testing"

	"github.com/billsnap/billsnap/cmd/e2e/e2etest"
)

// The API key never appears in stdout, stderr (the log, at debug level),
// the DuckDB file, the Parquet files, the reports or the metrics file —
// after exports under faults, contract breaks, an authentication failure,
// a NextPage to another host (which gets no request), NextPage links that
// carry the key and error messages that repeat it, and after run (its
// reconciliation and reports in every format), status, query and
// check-config. Every output is searched for every form of the key: text
// files as bytes, XLSX unzipped, DuckDB and Parquet through SQL over every
// row of every table. The heavy tier adds bodies that are not JSON, a
// NextPage loop and panics, at a larger size, and reconcile and report
// after them (TestTheKeyAppearsInNoPanic, keyReread).
func TestTheKeyAppearsInNoOutput(t *testing.T) {
	t.Parallel()
	e2etest.ManyProcesses(t)
	e2etest.KeyAppearsInNoOutput(t, e2etest.Binary(t), 40, nil)
}
