-- id: paid_without_payment
-- severity: critical
-- title: Paid without payment
-- description: An invoice with a PaymentDate that no settled payment names. Amount: TotalAmount.
SELECT 'invoice' AS entity,
       i.id AS entity_id,
       i.total_amount AS amount,
       i.currency_code AS currency,
       format('invoice {} of {} {} is marked paid on {} but no settled payment names it',
              i.invoice_number, CAST(i.total_amount AS VARCHAR), i.currency_code, strftime(i.payment_date, '%Y-%m-%d')) AS detail
FROM cur.invoices i
WHERE i.payment_date IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM cur.transactions t
                  WHERE t.invoice_id = i.id AND t.type = 'Payment' AND t.status = 'Settled')
  AND cur.in_period(i.invoice_date)
-- not judged:
-- Invoices whose PaymentDate, total or currency arrived untyped, or whose
-- date did when a period is set; invoices named by a transaction whose type
-- or status did; where a transaction's invoice did, every invoice marked
-- paid that no settled payment names (it may be that payment's).
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['payment_date', 'total_amount', 'currency_code']) u
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type FROM cur.untyped_in('invoices', ['invoice_date']) u WHERE cur.period_set()
UNION ALL
SELECT t.invoice_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('transactions', ['type', 'status']) u JOIN cur.transactions t ON t.id = u.id
WHERE t.invoice_id IS NOT NULL
UNION ALL
SELECT i.id, u.table_name, u.field, u.json_type
FROM cur.invoices i, (SELECT DISTINCT table_name, field, json_type FROM cur.untyped_in('transactions', ['invoice_id'])) u
WHERE i.payment_date IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM cur.transactions t WHERE t.invoice_id = i.id AND t.type = 'Payment' AND t.status = 'Settled')
