package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/snapshot/runrec"
	"github.com/billsnap/billsnap/snapshot/state"
)

// legacyTables are the run records' tables of a state before version 6
// (or of a state adopted from a read model, whose views they copy).
func legacyTables(ctx context.Context, q state.Querier) ([]runrec.Kind, error) {
	rows, err := q.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_catalog = ? AND table_schema = 'main' AND table_type = 'BASE TABLE' AND list_contains(?, table_name)`,
		state.AttachedAs, []string{runrec.Findings.Name, runrec.Unjudged.Name, runrec.Rechecks.Name})
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runrec.Kind
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		for _, k := range runrec.Kinds() {
			if k.Name == name {
				out = append(out, k)
			}
		}
	}
	return out, rows.Err()
}

// UpgradeRunRecords makes the run records of a state whose findings,
// unjudged and rechecks are tables (a state before version 6): each
// reconciliation's rows (each snapshot's, for rechecks) become a file,
// the findings' totals are computed for the trend, and the tables are
// dropped, in the section's state, which is then marked (billsnap_meta's
// run_records) so that later sections look no further. It tells whether
// it upgraded: the records are then to be published again. A kill during
// the upgrade leaves the state as it was, and files that the next section
// sweeps away.
// What it writes is sec's, the run records' part of the section.
func UpgradeRunRecords(ctx context.Context, sec *runrec.Changes, db *sql.DB, log *slog.Logger) (bool, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var marked int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM billsnap_meta WHERE key = 'run_records'").Scan(&marked); err != nil || marked > 0 {
		return false, err
	}
	legacy, err := legacyTables(ctx, conn)
	if err != nil {
		return false, err
	}
	if len(legacy) > 0 {
		if err := upgradeTables(ctx, sec, conn, legacy, log); err != nil {
			return false, err
		}
	}
	_, err = conn.ExecContext(ctx, "INSERT INTO billsnap_meta VALUES ('run_records', 'files')")
	return len(legacy) > 0, err
}

// upgradeTables writes the legacy tables' rows as run files and drops
// the tables.
func upgradeTables(ctx context.Context, sec *runrec.Changes, conn *sql.Conn, legacy []runrec.Kind, log *slog.Logger) error {
	log.Warn("upgrading billsnap's state: findings, unjudged and rechecks become a file a run", "dir", sec.Dir())
	if err := runrec.StageTables(ctx, conn); err != nil {
		return err
	}
	for _, k := range legacy {
		if err := upgradeKind(ctx, sec, conn, k); err != nil {
			return fmt.Errorf("upgrading %s: %w", k.Name, err)
		}
	}
	for _, k := range legacy {
		if _, err := conn.ExecContext(ctx, "DROP TABLE main."+k.Name); err != nil {
			return err
		}
	}
	crashpoint.Hit("history.upgraded")
	return nil
}

// upgradeKind writes legacy table k's rows as run files, a file for each
// snapshot and period (each snapshot, for rechecks).
func upgradeKind(ctx context.Context, sec *runrec.Changes, conn *sql.Conn, k runrec.Kind) error {
	staged := map[string]string{runrec.Findings.Name: runrec.StagedFindings, runrec.Unjudged.Name: runrec.StagedUnjudged, runrec.Rechecks.Name: runrec.StagedRechecks}[k.Name]
	period, cond := "period", "snapshot_id = ? AND period = ?"
	if k.Name == runrec.Rechecks.Name {
		period, cond = "NULL", "snapshot_id = ? AND ? IS NULL"
	}
	groups, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT DISTINCT snapshot_id, %s FROM main.%s ORDER BY ALL", period, k.Name))
	if err != nil {
		return err
	}
	type key struct {
		snap   string
		period sql.NullString
	}
	var keys []key
	for groups.Next() {
		var g key
		if err := groups.Scan(&g.snap, &g.period); err != nil {
			groups.Close()
			return err
		}
		keys = append(keys, g)
	}
	if err := errors.Join(groups.Err(), groups.Close()); err != nil {
		return err
	}
	if k.Name == runrec.Findings.Name {
		if err := upgradeTotals(ctx, conn); err != nil {
			return err
		}
	}
	for _, g := range keys {
		if _, err := conn.ExecContext(ctx, "DELETE FROM "+staged); err != nil {
			return err
		}
		q := fmt.Sprintf("INSERT INTO %s BY NAME SELECT * FROM main.%s WHERE %s", staged, k.Name, cond)
		if _, err := conn.ExecContext(ctx, q, g.snap, g.period); err != nil {
			return err
		}
		if err := sec.Keep(ctx, conn, k, g.snap, g.period, staged); err != nil {
			return err
		}
	}
	return nil
}

// upgradeTotals computes every reconciliation's totals (its open findings,
// neither resolved nor waived) from the legacy findings table.
func upgradeTotals(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(ctx, `DELETE FROM reconciliation_totals;
		INSERT INTO reconciliation_totals SELECT snapshot_id, period, severity, coalesce(currency, ''), count(*) FILTER (WHERE NOT waived),
		  coalesce(sum(amount) FILTER (WHERE NOT waived), 0)
		FROM main.findings WHERE status <> 'resolved' GROUP BY ALL`)
	return err
}
