-- id: payment_amount_mismatch
-- severity: medium
-- title: Payment amount mismatch
-- description: An invoice with a PaymentDate and at least one settled payment, where settled payments minus settled refunds differ from TotalAmount. Amount: TotalAmount − (payments − refunds).
WITH settled AS (
  SELECT invoice_id,
         coalesce(sum(amount) FILTER (WHERE type = 'Payment'), 0) AS paid,
         coalesce(sum(amount) FILTER (WHERE type = 'Refund'), 0) AS refunded,
         count(*) FILTER (WHERE type = 'Payment') AS payments
  FROM cur.transactions
  WHERE status = 'Settled' AND invoice_id IS NOT NULL
  GROUP BY invoice_id
)
SELECT 'invoice' AS entity,
       i.id AS entity_id,
       i.total_amount - (p.paid - p.refunded) AS amount,
       i.currency_code AS currency,
       format('invoice {} totals {} but settled payments ({}) less refunds ({}) come to {}',
              i.invoice_number, CAST(i.total_amount AS VARCHAR), CAST(p.paid AS VARCHAR), CAST(p.refunded AS VARCHAR),
              CAST(p.paid - p.refunded AS VARCHAR)) AS detail
FROM cur.invoices i
JOIN settled p ON p.invoice_id = i.id
WHERE i.payment_date IS NOT NULL AND p.payments > 0
  AND abs(i.total_amount - (p.paid - p.refunded)) > 0.005
  AND cur.in_period(i.invoice_date)
-- not judged:
-- Invoices whose PaymentDate, total or currency arrived untyped, or whose
-- date did when a period is set; invoices named by a transaction whose
-- type, status or amount did; where a transaction's invoice did, every
-- invoice marked paid (it may be one of its payments).
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['payment_date', 'total_amount', 'currency_code']) u
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type FROM cur.untyped_in('invoices', ['invoice_date']) u WHERE cur.period_set()
UNION ALL
SELECT t.invoice_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('transactions', ['type', 'status', 'amount']) u JOIN cur.transactions t ON t.id = u.id
WHERE t.invoice_id IS NOT NULL
UNION ALL
SELECT i.id, u.table_name, u.field, u.json_type
FROM cur.invoices i, (SELECT DISTINCT table_name, field, json_type FROM cur.untyped_in('transactions', ['invoice_id'])) u
WHERE i.payment_date IS NOT NULL
