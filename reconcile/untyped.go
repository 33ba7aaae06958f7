package reconcile

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// untypedSQL creates run_untyped, every value of the reconciled and the
// previous snapshot that arrived untyped (snapshot_fields says where to
// look: a typed column NULL where _raw has a value; a nested list that is
// not an array of objects), and the views cur.untyped and prev.untyped
// over it that the rules' "not judged" queries read.
const untypedSQL = `CREATE OR REPLACE TEMP TABLE run_untyped (snapshot_id VARCHAR, table_name VARCHAR, column_name VARCHAR,
	field VARCHAR, id VARCHAR, json_type VARCHAR)`

// findUntyped fills run_untyped for the snapshots of the session
// variables and tells whether it holds any value.
func findUntyped(ctx context.Context, conn *sql.Conn) (bool, error) {
	stmts := []string{untypedSQL,
		"CREATE OR REPLACE VIEW cur.untyped AS SELECT * FROM temp.main.run_untyped WHERE snapshot_id = getvariable('snapshot_id')",
		"CREATE OR REPLACE VIEW prev.untyped AS SELECT * FROM temp.main.run_untyped WHERE snapshot_id = getvariable('previous_snapshot_id')",
		// The untyped values of some columns of a table, and whether a
		// period limits the rules (an untyped InvoiceDate matters then).
		`CREATE OR REPLACE MACRO cur.untyped_in(t, cols) AS TABLE
		   SELECT id, table_name, field, json_type FROM cur.untyped WHERE table_name = t AND list_contains(cols, column_name)`,
		`CREATE OR REPLACE MACRO prev.untyped_in(t, cols) AS TABLE
		   SELECT id, table_name, field, json_type FROM prev.untyped WHERE table_name = t AND list_contains(cols, column_name)`,
		`CREATE OR REPLACE MACRO cur.period_set() AS getvariable('period_start') IS NOT NULL`,
		// The prices (product plan charge, currency) a pricing with an
		// untyped value may give: its product's in its currency; any
		// product of its plan when its product is unknown; any currency
		// (NULL) when its currency is.
		`CREATE OR REPLACE MACRO cur.untyped_prices() AS TABLE
		   SELECT ppc.id AS product_plan_charge_id, p.currency_code, u.table_name, u.field, u.json_type
		   FROM cur.untyped_in('product_plan_charge_pricings', ['product_plan_charge_id', 'currency_code', 'unit_price']) u
		   JOIN cur.product_plan_charge_pricings p ON p.id = u.id
		   JOIN cur.product_plan_charges ppc ON ppc.product_plan_id = p.product_plan_id AND ppc.id = coalesce(p.product_plan_charge_id, ppc.id)`}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return false, err
		}
	}
	found, err := readmodel.UntypedColumns(ctx, conn)
	if err != nil {
		return false, err
	}
	var cur string
	if err := conn.QueryRowContext(ctx, "SELECT getvariable('snapshot_id')").Scan(&cur); err != nil {
		return false, err
	}
	for _, u := range found {
		from := "prev"
		if u.Snapshot == cur {
			from = "cur"
		}
		if _, err := conn.ExecContext(ctx, insertUntypedSQL(u, from)); err != nil {
			return false, fmt.Errorf("finding the untyped values of %s.%s: %w", u.Table, u.Column, err)
		}
	}
	return len(found) > 0, nil
}

// insertUntypedSQL copies column u's untyped values into run_untyped,
// from the snapshot's records as sent, raw_<table> in schema from (cur or
// prev).
func insertUntypedSQL(u readmodel.UntypedColumn, from string) string {
	path := sqlQuote(`$."` + strings.ReplaceAll(u.Field, `"`, `\"`) + `"`)
	found := fmt.Sprintf("%s IS NULL AND json_type(_raw, %s) <> 'NULL'", u.Column, path)
	if u.List {
		found = fmt.Sprintf(`(json_type(_raw, %[1]s) NOT IN ('NULL', 'ARRAY')
			OR (json_type(_raw, %[1]s) = 'ARRAY' AND len(list_filter(json_type(_raw, %[2]s), x -> x <> 'OBJECT')) > 0))`,
			path, sqlQuote(`$."`+u.Field+`"[*]`))
	}
	return fmt.Sprintf(`INSERT INTO run_untyped SELECT snapshot_id, %s, %s, %s, id,
		CASE json_type(_raw, %s) WHEN 'VARCHAR' THEN 'string' WHEN 'BOOLEAN' THEN 'boolean' WHEN 'OBJECT' THEN 'object'
		     WHEN 'ARRAY' THEN 'array' WHEN 'NULL' THEN 'null' ELSE 'number' END
		FROM %s.raw_%s WHERE %s`,
		sqlQuote(u.Table), sqlQuote(u.Column), sqlQuote(u.Field), path, from, u.Table, found)
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// holdBack runs the "not judged" query of every rule that has one over
// the untyped values, keeps what it found in run_unjudged, and takes the
// rule's findings for those records out of run_findings. It returns what
// each rule did not judge, and the findings held back per rule.
func holdBack(ctx context.Context, conn *sql.Conn, rules []findings.Rule) (map[string]int, error) {
	_, err := conn.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE run_unjudged (rule VARCHAR, entity_id VARCHAR,
		table_name VARCHAR, field VARCHAR, json_type VARCHAR)`)
	if err != nil {
		return nil, err
	}
	held := map[string]int{}
	for _, rule := range rules {
		if rule.NotJudged == "" {
			continue
		}
		q := "INSERT INTO run_unjudged SELECT DISTINCT ?, CAST(entity_id AS VARCHAR), table_name, field, json_type FROM (" + rule.NotJudged + "\n) AS unjudged"
		if _, err := conn.ExecContext(ctx, q, rule.ID); err != nil {
			return nil, fmt.Errorf("rule %s (%s), not judged: %w", rule.ID, rule.Source, err)
		}
		res, err := conn.ExecContext(ctx, `DELETE FROM run_findings WHERE rule = ? AND entity_id IN (SELECT entity_id FROM run_unjudged WHERE rule = ?)`, rule.ID, rule.ID)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			held[rule.ID] = int(n)
		}
	}
	return held, nil
}

// unjudged reads back what each rule did not judge, in rule order.
func unjudged(ctx context.Context, conn *sql.Conn, rules []findings.Rule) ([]findings.Unjudged, error) {
	rows, err := conn.QueryContext(ctx, `SELECT rule, table_name, field, string_agg(DISTINCT json_type, ', ' ORDER BY json_type), count(DISTINCT entity_id)
		FROM run_unjudged GROUP BY rule, table_name, field ORDER BY list_position(?, rule), table_name, field`, ruleIDs(rules))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []findings.Unjudged
	for rows.Next() {
		var u findings.Unjudged
		if err := rows.Scan(&u.Rule, &u.Table, &u.Field, &u.Types, &u.Records); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// notJudgedRecords counts the records each rule did not judge.
func notJudgedRecords(ctx context.Context, conn *sql.Conn) (map[string]int, error) {
	rows, err := conn.QueryContext(ctx, "SELECT rule, count(DISTINCT entity_id) FROM run_unjudged GROUP BY rule")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var rule string
		var n int
		if err := rows.Scan(&rule, &n); err != nil {
			return nil, err
		}
		out[rule] = n
	}
	return out, rows.Err()
}
