-- id: quantity_mismatch
-- severity: medium
-- title: Quantity mismatch
-- description: An invoice line whose charge has Amount above zero and whose Quantity differs from it. Amount: (charge Amount − Quantity) × line UnitPrice.
SELECT 'invoice_line' AS entity,
       l.id AS entity_id,
       (c.amount - l.quantity) * l.unit_price AS amount,
       i.currency_code AS currency,
       format('line of invoice {} ({}) bills quantity {} but charge {} holds {}',
              i.invoice_number, i.id, cur.qty(l.quantity), c.id, cur.qty(c.amount)) AS detail
FROM cur.invoice_lines l
JOIN cur.invoices i ON i.id = l.invoice_id
JOIN cur.subscription_charges c ON c.id = l.subscription_charge_id
WHERE c.amount > 0 AND l.quantity <> c.amount
  AND cur.in_period(i.invoice_date)
-- not judged:
-- Lines whose charge, quantity or unit price arrived untyped; the lines of
-- an invoice whose currency did, or whose date did when a period is set.
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoice_lines', ['subscription_charge_id', 'quantity', 'unit_price']) u
UNION ALL
SELECT l.id, u.table_name, u.field, u.json_type
FROM cur.untyped u JOIN cur.invoice_lines l ON l.invoice_id = u.id
WHERE u.table_name = 'invoices' AND (u.column_name = 'currency_code' OR (u.column_name = 'invoice_date' AND cur.period_set()))
