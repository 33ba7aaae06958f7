package reconcile

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/findings"
)

// A rule DuckDB cannot run within its memory limit is run again on one
// thread, and the threads setting is put back; one that cannot run on one
// thread either fails naming the config key to raise. The rules hold a
// list of numbers, which DuckDB cannot spill: 8 bytes a number, against a
// limit of 64MB.
func TestARuleOutOfMemoryIsRunAgainOnOneThread(t *testing.T) {
	t.Parallel()
	fx, db := loadFixture(t, "00_clean")
	listRule := func(numbers string) findings.Rule {
		return findings.Rule{ID: "big_list", Severity: "low", Source: "big_list.sql",
			SQL: "SELECT 'list' AS entity, 'x' AS entity_id, 0 AS amount, 'XTS' AS currency, len(list(range))::VARCHAR AS detail FROM range(" + numbers + ")"}
	}
	for _, tc := range []struct {
		numbers, want string
	}{
		{"CASE WHEN current_setting('threads') > 1 THEN 20000000 ELSE 1000 END", ""},
		{"20000000", "on one thread too; raise config key duckdb.memory_limit"},
	} {
		var log strings.Builder
		for _, q := range []string{"SET memory_limit = '64MB'", "SET threads = 2"} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		o := fx.options([]findings.Rule{listRule(tc.numbers)})
		o.Log = slog.New(slog.NewTextHandler(&log, nil))
		r, err := Run(context.Background(), source(db), o)
		switch {
		case tc.want == "" && (err != nil || len(r.Findings) != 1 || r.Findings[0].Detail != "1000"):
			t.Errorf("%s: %v, %+v", tc.numbers, err, r)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "rule big_list (big_list.sql)")):
			t.Errorf("%s: err %v", tc.numbers, err)
		}
		var threads int
		if err := db.QueryRow("SELECT current_setting('threads')").Scan(&threads); err != nil || threads != 2 {
			t.Errorf("%s: threads %d after the rule (%v)", tc.numbers, threads, err)
		}
		if !strings.Contains(log.String(), `running it again on one thread" rule=big_list threads=2`) {
			t.Errorf("%s: log %q", tc.numbers, log.String())
		}
	}
}
