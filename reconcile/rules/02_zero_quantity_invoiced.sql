-- id: zero_quantity_invoiced
-- severity: high
-- title: Zero quantity invoiced
-- description: An invoice line whose charge has Amount 0, or whose Quantity is 0 while its Amount is not. Amount: minus the line's Amount.
SELECT 'invoice_line' AS entity,
       l.id AS entity_id,
       -l.amount AS amount,
       i.currency_code AS currency,
       format('line of invoice {} ({}) bills {} for charge {}{}',
              i.invoice_number, i.id, CAST(l.amount AS VARCHAR), l.subscription_charge_id,
              CASE WHEN c.amount = 0 THEN ', whose quantity is 0' ELSE ' at quantity 0' END) AS detail
FROM cur.invoice_lines l
JOIN cur.invoices i ON i.id = l.invoice_id
LEFT JOIN cur.subscription_charges c ON c.id = l.subscription_charge_id
WHERE (c.amount = 0 OR (l.quantity = 0 AND abs(l.amount) > 0.005))
  AND cur.in_period(i.invoice_date)
-- not judged:
-- Lines whose charge, quantity or amount arrived untyped; the lines of an
-- invoice whose currency did, or whose date did when a period is set.
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoice_lines', ['subscription_charge_id', 'quantity', 'amount']) u
UNION ALL
SELECT l.id, u.table_name, u.field, u.json_type
FROM cur.untyped u JOIN cur.invoice_lines l ON l.invoice_id = u.id
WHERE u.table_name = 'invoices' AND (u.column_name = 'currency_code' OR (u.column_name = 'invoice_date' AND cur.period_set()))
