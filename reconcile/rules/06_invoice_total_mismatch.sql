-- id: invoice_total_mismatch
-- severity: medium
-- title: Invoice total mismatch
-- description: An invoice whose TotalAmount differs from the sum of its lines' Amount. Amount: sum of lines − TotalAmount.
SELECT 'invoice' AS entity,
       i.id AS entity_id,
       coalesce(s.total, 0) - i.total_amount AS amount,
       i.currency_code AS currency,
       format('invoice {} totals {} but its {} lines sum to {}',
              i.invoice_number, CAST(i.total_amount AS VARCHAR), coalesce(s.n, 0), CAST(coalesce(s.total, 0) AS VARCHAR)) AS detail
FROM cur.invoices i
LEFT JOIN (SELECT invoice_id, sum(amount) AS total, count(*) AS n FROM cur.invoice_lines GROUP BY invoice_id) s ON s.invoice_id = i.id
WHERE abs(coalesce(s.total, 0) - i.total_amount) > 0.005
  AND cur.in_period(i.invoice_date)
-- not judged:
-- Invoices whose total, currency or list of lines arrived untyped, or
-- whose date did when a period is set; invoices with a line whose amount did.
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['total_amount', 'currency_code', 'invoice_lines']) u
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['invoice_date']) u WHERE cur.period_set()
UNION ALL
SELECT l.invoice_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoice_lines', ['amount']) u JOIN cur.invoice_lines l ON l.id = u.id
