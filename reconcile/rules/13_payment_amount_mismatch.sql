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
