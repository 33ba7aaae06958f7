package reconcile

import (
	"context"
	"database/sql"
	"fmt"
)

// schemaSQL creates what rules read besides the snapshots' rows and what
// reconcile writes: the schemas cur and prev (whose views over the
// snapshots' rows Options.Bind makes), the helper macros, and the findings
// tables.
func schemaSQL() []string {
	return []string{"CREATE SCHEMA IF NOT EXISTS cur", "CREATE SCHEMA IF NOT EXISTS prev",
		`CREATE OR REPLACE MACRO cur.price_key(charge_id, currency) AS charge_id || '/' || currency`,
		`CREATE OR REPLACE MACRO cur.in_period(ts) AS
		   getvariable('period_start') IS NULL OR (ts >= getvariable('period_start') AND ts < getvariable('period_end'))`,
		`CREATE OR REPLACE MACRO cur.qty(x) AS
		   CASE WHEN x = trunc(x) THEN CAST(CAST(x AS BIGINT) AS VARCHAR) ELSE rtrim(CAST(x AS VARCHAR), '0') END`,
		`CREATE TABLE IF NOT EXISTS findings (
		   snapshot_id VARCHAR NOT NULL,
		   period VARCHAR NOT NULL,
		   rule VARCHAR NOT NULL,
		   severity VARCHAR NOT NULL,
		   entity VARCHAR NOT NULL,
		   entity_id VARCHAR NOT NULL,
		   amount DECIMAL(18,2) NOT NULL,
		   currency VARCHAR,
		   detail VARCHAR,
		   status VARCHAR NOT NULL,
		   first_seen VARCHAR NOT NULL,
		   waived BOOLEAN NOT NULL,
		   waiver_reason VARCHAR,
		   waiver_owner VARCHAR,
		   waiver_expires DATE,
		   as_of TIMESTAMPTZ NOT NULL,
		   reconciled_at TIMESTAMPTZ NOT NULL)`,
		// The records each rule did not judge because a value arrived
		// untyped: which value (table, field, JSON type).
		`CREATE TABLE IF NOT EXISTS unjudged (
		   snapshot_id VARCHAR NOT NULL,
		   period VARCHAR NOT NULL,
		   rule VARCHAR NOT NULL,
		   entity_id VARCHAR NOT NULL,
		   table_name VARCHAR NOT NULL,
		   field VARCHAR NOT NULL,
		   json_type VARCHAR NOT NULL,
		   reconciled_at TIMESTAMPTZ NOT NULL)`,
		// One row per reconciliation, so that a snapshot that had no
		// finding is in the trend too.
		`CREATE TABLE IF NOT EXISTS reconciliations (
		   snapshot_id VARCHAR NOT NULL,
		   period VARCHAR NOT NULL,
		   as_of TIMESTAMPTZ NOT NULL,
		   reconciled_at TIMESTAMPTZ NOT NULL,
		   findings BIGINT NOT NULL,
		   material BOOLEAN NOT NULL)`}
}

// pricesSQL is the view rules join prices on, over the bound pricings:
// one price per product and currency, whatever the service sends. Rules
// join it on price_key (product plan charge ID/currency): with two join
// columns, one from each of two other tables, the planner may join it
// first on the currency alone, a near cross product.
const pricesSQL = `CREATE OR REPLACE VIEW cur.prices AS
	SELECT cur.price_key(product_plan_charge_id, currency_code) AS price_key, product_plan_charge_id, currency_code, min(unit_price) AS unit_price
	FROM cur.product_plan_charge_pricings GROUP BY product_plan_charge_id, currency_code`

// migrate creates the schema on conn.
func migrate(ctx context.Context, conn *sql.Conn) error {
	for _, q := range schemaSQL() {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("reconcile schema: %w", err)
		}
	}
	return nil
}
