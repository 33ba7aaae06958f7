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
