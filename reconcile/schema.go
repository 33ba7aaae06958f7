package reconcile

import (
	"context"
	"database/sql"
	"fmt"
)

// schemaSQL creates what rules read besides the snapshots' rows: the
// catalogs cur and prev (whose views over the snapshots' rows Source.Bind
// makes) and the helper macros. cur and prev are databases in memory,
// attached for the reconciliation, so that nothing of them is written to
// the database reconciled in. What reconcile finds its Source keeps
// (snapshot.Store.Keep records it in the store's state).
func schemaSQL() []string {
	return []string{"ATTACH IF NOT EXISTS ':memory:' AS cur", "ATTACH IF NOT EXISTS ':memory:' AS prev",
		`CREATE OR REPLACE MACRO cur.price_key(charge_id, currency) AS charge_id || '/' || currency`,
		`CREATE OR REPLACE MACRO cur.in_period(ts) AS
		   getvariable('period_start') IS NULL OR (ts >= getvariable('period_start') AND ts < getvariable('period_end'))`,
		`CREATE OR REPLACE MACRO cur.qty(x) AS
		   CASE WHEN x = trunc(x) THEN CAST(CAST(x AS BIGINT) AS VARCHAR) ELSE rtrim(CAST(x AS VARCHAR), '0') END`}
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
