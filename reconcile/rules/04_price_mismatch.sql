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
