-- id: price_mismatch
-- severity: medium
-- title: Price mismatch
-- description: An invoice line whose UnitPrice differs from the price of its product in the invoice's currency. Amount: (price − UnitPrice) × Quantity.
SELECT 'invoice_line' AS entity,
       l.id AS entity_id,
       (p.unit_price - l.unit_price) * l.quantity AS amount,
       i.currency_code AS currency,
       format('line of invoice {} ({}) bills {} a unit; product {} costs {} in {}',
              i.invoice_number, i.id, CAST(l.unit_price AS VARCHAR), l.product_plan_charge_id,
              CAST(p.unit_price AS VARCHAR), i.currency_code) AS detail
FROM cur.invoice_lines l
JOIN cur.invoices i ON i.id = l.invoice_id
JOIN cur.prices p ON p.price_key = cur.price_key(l.product_plan_charge_id, i.currency_code)
WHERE abs(p.unit_price - l.unit_price) > 0.005
  AND cur.in_period(i.invoice_date)
-- not judged:
-- Lines whose product, unit price or quantity arrived untyped; the lines of
-- an invoice whose currency did, or whose date did when a period is set;
-- lines whose price may come from a pricing with an untyped value.
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoice_lines', ['product_plan_charge_id', 'unit_price', 'quantity']) u
UNION ALL
SELECT l.id, u.table_name, u.field, u.json_type
FROM cur.untyped u JOIN cur.invoice_lines l ON l.invoice_id = u.id
WHERE u.table_name = 'invoices' AND (u.column_name = 'currency_code' OR (u.column_name = 'invoice_date' AND cur.period_set()))
UNION ALL
SELECT l.id, u.table_name, u.field, u.json_type
FROM cur.untyped_prices() u
JOIN cur.invoice_lines l ON l.product_plan_charge_id = u.product_plan_charge_id
JOIN cur.invoices i ON i.id = l.invoice_id
WHERE u.currency_code IS NULL OR i.currency_code IS NULL OR i.currency_code = u.currency_code
