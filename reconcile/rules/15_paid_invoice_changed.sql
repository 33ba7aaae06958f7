-- id: paid_invoice_changed
-- severity: critical
-- title: Paid invoice changed
-- description: An invoice that had a PaymentDate in the previous complete snapshot and whose TotalAmount, line count or line Amount sum differs now, or that is gone. Amount: TotalAmount now − before (0 now when gone).
-- Lines are summed per invoice on their own narrow columns, then joined
-- to the invoices: grouping the join by the invoices' columns held every
-- invoice and line in memory (a snapshot of 10M records ran out of
-- DuckDB's 256 MB).
WITH before_lines AS (
  SELECT invoice_id, count(id) AS lines, sum(amount) AS line_sum FROM prev.invoice_lines GROUP BY invoice_id
), now_lines AS (
  SELECT invoice_id, count(id) AS lines, sum(amount) AS line_sum FROM cur.invoice_lines GROUP BY invoice_id
), before AS (
  SELECT i.id, i.invoice_number, i.total_amount, i.currency_code, coalesce(l.lines, 0) AS lines, coalesce(l.line_sum, 0) AS line_sum
  FROM prev.invoices i LEFT JOIN before_lines l ON l.invoice_id = i.id
  WHERE i.payment_date IS NOT NULL
), now AS (
  SELECT i.id, i.total_amount, i.currency_code, coalesce(l.lines, 0) AS lines, coalesce(l.line_sum, 0) AS line_sum
  FROM cur.invoices i LEFT JOIN now_lines l ON l.invoice_id = i.id
)
SELECT 'invoice' AS entity,
       b.id AS entity_id,
       coalesce(n.total_amount, 0) - b.total_amount AS amount,
       coalesce(n.currency_code, b.currency_code) AS currency,
       CASE WHEN n.id IS NULL
            THEN format('paid invoice {} ({} {}) is gone since snapshot {}', b.invoice_number, CAST(b.total_amount AS VARCHAR),
                        b.currency_code, getvariable('previous_snapshot_id'))
            ELSE format('paid invoice {} changed since snapshot {}: total {} → {}, lines {} → {}, line sum {} → {}',
                        b.invoice_number, getvariable('previous_snapshot_id'), CAST(b.total_amount AS VARCHAR), CAST(n.total_amount AS VARCHAR),
                        b.lines, n.lines, CAST(b.line_sum AS VARCHAR), CAST(n.line_sum AS VARCHAR))
       END AS detail
FROM before b LEFT JOIN now n ON n.id = b.id
WHERE n.id IS NULL OR abs(n.total_amount - b.total_amount) > 0.005 OR n.lines <> b.lines OR abs(n.line_sum - b.line_sum) > 0.005
-- not judged:
-- Invoices whose PaymentDate, total, currency or list of lines arrived
-- untyped in the previous snapshot, or whose total, currency or list of
-- lines did now; invoices with a line whose amount did, then or now.
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM prev.untyped_in('invoices', ['payment_date', 'total_amount', 'currency_code', 'invoice_lines']) u
UNION ALL
SELECT l.invoice_id, u.table_name, u.field, u.json_type
FROM prev.untyped_in('invoice_lines', ['amount']) u JOIN prev.invoice_lines l ON l.id = u.id
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type FROM cur.untyped_in('invoices', ['total_amount', 'currency_code', 'invoice_lines']) u
UNION ALL
SELECT l.invoice_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoice_lines', ['amount']) u JOIN cur.invoice_lines l ON l.id = u.id
