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
