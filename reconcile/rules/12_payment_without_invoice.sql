-- id: payment_without_invoice
-- severity: high
-- title: Payment without invoice
-- description: A settled payment whose InvoiceID is null, or names an invoice with no PaymentDate (an InvoiceID naming no invoice is orphan_reference's). Amount: minus the payment's Amount.
SELECT 'transaction' AS entity,
       t.id AS entity_id,
       -t.amount AS amount,
       t.currency_code AS currency,
       CASE WHEN t.invoice_id IS NULL
            THEN format('settled payment of {} {} on {} from customer {} names no invoice',
                        CAST(t.amount AS VARCHAR), t.currency_code, strftime(t.transaction_date, '%Y-%m-%d'), t.customer_id)
            ELSE format('settled payment of {} {} names invoice {}, which is not marked paid',
                        CAST(t.amount AS VARCHAR), t.currency_code, i.invoice_number)
       END AS detail
FROM cur.transactions t
LEFT JOIN cur.invoices i ON i.id = t.invoice_id
WHERE t.type = 'Payment' AND t.status = 'Settled'
  AND (t.invoice_id IS NULL OR (i.id IS NOT NULL AND i.payment_date IS NULL))
-- not judged:
-- Transactions whose invoice, type, status, amount or currency arrived
-- untyped; transactions naming an invoice whose PaymentDate did.
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('transactions', ['invoice_id', 'type', 'status', 'amount', 'currency_code']) u
UNION ALL
SELECT t.id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['payment_date']) u JOIN cur.transactions t ON t.invoice_id = u.id
