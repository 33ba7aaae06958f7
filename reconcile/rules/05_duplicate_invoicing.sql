-- id: duplicate_invoicing
-- severity: high
-- title: Duplicate invoicing
-- description: An invoice line naming a subscription charge that an earlier line (older InvoiceDate, then smaller line ID) already names; the first line is not a finding. Amount: minus the line's Amount.
-- The window runs only over the lines of charges named more than once, on
-- their narrow columns: over every line it held them all in memory (a
-- snapshot of 10M records ran out of DuckDB's 256 MB).
WITH named AS (
  SELECT l.id, l.subscription_charge_id, i.invoice_date, i.invoice_number
  FROM cur.invoice_lines l
  JOIN cur.invoices i ON i.id = l.invoice_id
  WHERE l.subscription_charge_id IS NOT NULL
),
repeated AS (
  SELECT subscription_charge_id FROM cur.invoice_lines
  WHERE subscription_charge_id IS NOT NULL
  GROUP BY subscription_charge_id HAVING count(*) > 1
),
ranked AS (
  SELECT id, subscription_charge_id,
         row_number() OVER w AS n,
         first_value(invoice_number) OVER w AS first_invoice
  FROM named SEMI JOIN repeated USING (subscription_charge_id)
  WINDOW w AS (PARTITION BY subscription_charge_id ORDER BY invoice_date, id)
)
SELECT 'invoice_line' AS entity,
       l.id AS entity_id,
       -l.amount AS amount,
       i.currency_code AS currency,
       format('charge {} is billed again on invoice {} ({}); invoice {} billed it first',
              r.subscription_charge_id, i.invoice_number, i.id, r.first_invoice) AS detail
FROM (SELECT * FROM ranked WHERE n > 1) r
JOIN cur.invoice_lines l ON l.id = r.id AND l.subscription_charge_id = r.subscription_charge_id
JOIN cur.invoices i ON i.id = l.invoice_id
WHERE cur.in_period(i.invoice_date)
-- not judged:
-- Lines whose amount, or whose invoice's currency, arrived untyped; every
-- line naming a charge that a line of an invoice with an untyped date
-- names (the order of the lines is unknown); where a line's charge (or a
-- whole list of lines) arrived untyped, that line and every line that is
-- the first known one to name its charge (an unknown line may be earlier).
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoice_lines', ['amount']) u
UNION ALL
SELECT l.id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['currency_code']) u JOIN cur.invoice_lines l ON l.invoice_id = u.id
UNION ALL
SELECT o.id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['invoice_date']) u
JOIN cur.invoice_lines l ON l.invoice_id = u.id
JOIN cur.invoice_lines o ON o.subscription_charge_id = l.subscription_charge_id
UNION ALL
SELECT l.id, u.table_name, u.field, u.json_type
FROM cur.invoice_lines l JOIN cur.invoices i ON i.id = l.invoice_id,
     (SELECT DISTINCT table_name, field, json_type FROM cur.untyped
      WHERE (table_name = 'invoice_lines' AND column_name = 'subscription_charge_id')
         OR (table_name = 'invoices' AND column_name = 'invoice_lines')) u
WHERE l.subscription_charge_id IS NULL
   OR NOT EXISTS (SELECT 1 FROM cur.invoice_lines e JOIN cur.invoices ei ON ei.id = e.invoice_id
                  WHERE e.subscription_charge_id = l.subscription_charge_id
                    AND (ei.invoice_date < i.invoice_date OR (ei.invoice_date = i.invoice_date AND e.id < l.id)))
