package reconcile

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
)

// runCustomers is the temporary table of each finding's customer and
// invoice number, by (entity, entity_id): of this run's findings and of
// the previous snapshot's that may be resolved now.
const runCustomers = "run_customers"

// nameCustomers fills run_customers: one lookup after the rules, joining
// the records the findings name to the snapshot's customers and invoices
// (their customer and invoice number fields), in the snapshot reconciled
// and then in the previous one (a record gone since). The fields it reads
// are assumed, not the service's spec: a lookup that fails (a field or
// table not there) is logged and leaves every finding unnamed, never
// failing the run.
func nameCustomers(ctx context.Context, conn *sql.Conn, period string, log *slog.Logger) error {
	_, err := conn.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE `+runCustomers+` (entity VARCHAR, entity_id VARCHAR,
		customer_id VARCHAR, customer_name VARCHAR, invoice_number VARCHAR)`)
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, customersSQL(), period)
	if err != nil {
		log.Warn("findings name no customer: the lookup of their customers failed", "error", err)
	}
	return nil
}

// customersSQL fills run_customers from the keys of run_findings and of
// prev.stored_findings of the period (the argument).
func customersSQL() string {
	return `INSERT INTO ` + runCustomers + `
	WITH keys AS (
	  SELECT DISTINCT entity, entity_id FROM run_findings
	  UNION SELECT entity, entity_id FROM prev.stored_findings WHERE coalesce(period, '') = ? AND status <> 'resolved'
	), cur_links AS (` + linksSQL("cur") + `), prev_links AS (` + linksSQL("prev") + `),
	links AS (
	  SELECT k.entity, k.entity_id, coalesce(c.customer_id, p.customer_id) AS customer_id,
	         coalesce(c.invoice_number, p.invoice_number) AS invoice_number
	  FROM keys k LEFT JOIN cur_links c USING (entity, entity_id) LEFT JOIN prev_links p USING (entity, entity_id)
	)
	SELECT l.entity, l.entity_id, l.customer_id,
	       coalesce(nullif(trim(cc.full_name), ''), nullif(trim(cc.company_name), ''),
	                nullif(trim(pc.full_name), ''), nullif(trim(pc.company_name), '')),
	       l.invoice_number
	FROM links l
	LEFT JOIN (SELECT id, any_value(full_name) AS full_name, any_value(company_name) AS company_name
	           FROM cur.customers WHERE id IN (SELECT customer_id FROM links) GROUP BY id) cc ON cc.id = l.customer_id
	LEFT JOIN (SELECT id, any_value(full_name) AS full_name, any_value(company_name) AS company_name
	           FROM prev.customers WHERE id IN (SELECT customer_id FROM links) GROUP BY id) pc ON pc.id = l.customer_id`
}

// linksSQL is, for each key of keys that names a record of the snapshot
// in schema s, its customer's ID and its invoice's number, one row a key:
// an invoice's own, a line's invoice's, a transaction's (its customer, or
// its invoice's), a subscription's, a charge's or a subscription
// product's subscription's, a reference's active charges' (the first
// customer), a customer itself.
func linksSQL(s string) string {
	parts := []string{
		`SELECT k.entity, k.entity_id, i.customer_id, i.invoice_number FROM keys k JOIN %[1]s.invoices i ON k.entity = 'invoice' AND i.id = k.entity_id`,
		`SELECT k.entity, k.entity_id, i.customer_id, i.invoice_number FROM keys k JOIN %[1]s.invoice_lines l ON k.entity = 'invoice_line' AND l.id = k.entity_id
		   LEFT JOIN %[1]s.invoices i ON i.id = l.invoice_id`,
		`SELECT k.entity, k.entity_id, coalesce(t.customer_id, i.customer_id), i.invoice_number FROM keys k JOIN %[1]s.transactions t ON k.entity = 'transaction' AND t.id = k.entity_id
		   LEFT JOIN %[1]s.invoices i ON i.id = t.invoice_id`,
		`SELECT k.entity, k.entity_id, s.customer_id, NULL FROM keys k JOIN %[1]s.subscriptions s ON k.entity = 'subscription' AND s.id = k.entity_id`,
		`SELECT k.entity, k.entity_id, s.customer_id, NULL FROM keys k JOIN %[1]s.subscription_charges c ON k.entity = 'subscription_charge' AND c.id = k.entity_id
		   LEFT JOIN %[1]s.subscriptions s ON s.id = c.subscription_id`,
		`SELECT k.entity, k.entity_id, s.customer_id, NULL FROM keys k JOIN %[1]s.subscriptions s ON k.entity = 'subscription_product' AND s.id = split_part(k.entity_id, '/', 1)`,
		`SELECT k.entity, k.entity_id, s.customer_id, NULL FROM keys k JOIN %[1]s.subscription_charges c ON k.entity = 'reference' AND c.reference_id = k.entity_id AND c.status = 1
		   JOIN %[1]s.subscriptions s ON s.id = c.subscription_id`,
		`SELECT k.entity, k.entity_id, c.id, NULL FROM keys k JOIN %[1]s.customers c ON k.entity = 'customer' AND c.id = k.entity_id`,
	}
	return fmt.Sprintf(`SELECT entity, entity_id, min(customer_id) AS customer_id, min(invoice_number) AS invoice_number FROM (
	`+strings.Join(parts, "\n\tUNION ALL ")+`) GROUP BY entity, entity_id`, s)
}
