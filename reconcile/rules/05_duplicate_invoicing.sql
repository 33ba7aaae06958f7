-- id: duplicate_invoicing
-- severity: high
-- title: Duplicate invoicing
-- description: An invoice line naming a subscription charge that an earlier line (older InvoiceDate, then smaller line ID) already names; the first line is not a finding. Amount: minus the line's Amount.
WITH ranked AS (
  SELECT l.id, l.amount, l.subscription_charge_id, i.id AS invoice_id, i.invoice_number, i.invoice_date, i.currency_code,
         row_number() OVER w AS n,
         first_value(i.invoice_number) OVER w AS first_invoice
  FROM cur.invoice_lines l
  JOIN cur.invoices i ON i.id = l.invoice_id
  WHERE l.subscription_charge_id IS NOT NULL
  WINDOW w AS (PARTITION BY l.subscription_charge_id ORDER BY i.invoice_date, l.id)
)
SELECT 'invoice_line' AS entity,
       id AS entity_id,
       -amount AS amount,
       currency_code AS currency,
       format('charge {} is billed again on invoice {} ({}); invoice {} billed it first',
              subscription_charge_id, invoice_number, invoice_id, first_invoice) AS detail
FROM ranked
WHERE n > 1 AND cur.in_period(invoice_date)
