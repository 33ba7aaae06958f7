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
