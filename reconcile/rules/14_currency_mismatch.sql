-- id: currency_mismatch
-- severity: high
-- title: Currency mismatch
-- description: An invoice in another currency than its customer's; a transaction in another currency than its invoice's; a subscription in a currency its plan does not list in ActiveCurrencies. Only records that both exist are compared. Amount: 0.
SELECT 'invoice' AS entity, i.id AS entity_id, 0 AS amount, i.currency_code AS currency,
       format('invoice {} is in {} but customer {} is in {}', i.invoice_number, i.currency_code, c.id, c.currency_code) AS detail
FROM cur.invoices i JOIN cur.customers c ON c.id = i.customer_id
WHERE i.currency_code IS DISTINCT FROM c.currency_code
UNION ALL
SELECT 'transaction', t.id, 0, t.currency_code,
       format('{} {} is in {} but invoice {} is in {}', lower(t.type), t.id, t.currency_code, i.invoice_number, i.currency_code)
FROM cur.transactions t JOIN cur.invoices i ON i.id = t.invoice_id
WHERE t.currency_code IS DISTINCT FROM i.currency_code
UNION ALL
SELECT 'subscription', s.id, 0, s.currency_code,
       format('subscription {} is in {} but plan {} sells in {}', s.id, s.currency_code, p.id, p.active_currencies)
FROM cur.subscriptions s JOIN cur.product_plans p ON p.id = s.product_plan_id
WHERE NOT coalesce(list_contains(list_transform(string_split(coalesce(p.active_currencies, ''), ','), x -> trim(x)), s.currency_code), false)
-- not judged:
-- Records whose own currency, or the reference to the record it is
-- compared with, arrived untyped; invoices of a customer, and transactions
-- of an invoice, whose currency did.
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['currency_code', 'customer_id']) u
UNION ALL
SELECT i.id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('customers', ['currency_code']) u JOIN cur.invoices i ON i.customer_id = u.id
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type FROM cur.untyped_in('transactions', ['currency_code', 'invoice_id']) u
UNION ALL
SELECT t.id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['currency_code']) u JOIN cur.transactions t ON t.invoice_id = u.id
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type FROM cur.untyped_in('subscriptions', ['currency_code', 'product_plan_id']) u
