-- id: orphan_reference
-- severity: high
-- title: Orphan reference
-- description: A record whose reference names no record of the snapshot (SubscriptionCharge.SubscriptionID and ProductPlanChargeID, Subscription.CustomerID and ProductPlanID, Invoice.CustomerID, InvoiceLine.SubscriptionChargeID, Transaction.InvoiceID when not null); one finding per record, the detail names the fields. Amount: 0, or the line's or transaction's Amount.
WITH broken AS (
  SELECT 'subscription_charge' AS entity, c.id AS entity_id, 0 AS amount, s.currency_code AS currency,
         'SubscriptionCharge.SubscriptionID ' || coalesce(c.subscription_id, 'null') AS field
  FROM cur.subscription_charges c LEFT JOIN cur.subscriptions s ON s.id = c.subscription_id
  WHERE s.id IS NULL
  UNION ALL
  SELECT 'subscription_charge', c.id, 0, s.currency_code, 'SubscriptionCharge.ProductPlanChargeID ' || coalesce(c.product_plan_charge_id, 'null')
  FROM cur.subscription_charges c LEFT JOIN cur.subscriptions s ON s.id = c.subscription_id
  WHERE NOT EXISTS (SELECT 1 FROM cur.product_plan_charges p WHERE p.id = c.product_plan_charge_id)
  UNION ALL
  SELECT 'subscription', s.id, 0, s.currency_code, 'Subscription.CustomerID ' || coalesce(s.customer_id, 'null')
  FROM cur.subscriptions s
  WHERE NOT EXISTS (SELECT 1 FROM cur.customers c WHERE c.id = s.customer_id)
  UNION ALL
  SELECT 'subscription', s.id, 0, s.currency_code, 'Subscription.ProductPlanID ' || coalesce(s.product_plan_id, 'null')
  FROM cur.subscriptions s
  WHERE NOT EXISTS (SELECT 1 FROM cur.product_plans p WHERE p.id = s.product_plan_id)
  UNION ALL
  SELECT 'invoice', i.id, 0, i.currency_code, 'Invoice.CustomerID ' || coalesce(i.customer_id, 'null')
  FROM cur.invoices i
  WHERE NOT EXISTS (SELECT 1 FROM cur.customers c WHERE c.id = i.customer_id)
  UNION ALL
  SELECT 'invoice_line', l.id, l.amount, i.currency_code, 'InvoiceLine.SubscriptionChargeID ' || coalesce(l.subscription_charge_id, 'null')
  FROM cur.invoice_lines l JOIN cur.invoices i ON i.id = l.invoice_id
  WHERE NOT EXISTS (SELECT 1 FROM cur.subscription_charges c WHERE c.id = l.subscription_charge_id)
  UNION ALL
  SELECT 'transaction', t.id, t.amount, t.currency_code, 'Transaction.InvoiceID ' || t.invoice_id
  FROM cur.transactions t
  WHERE t.invoice_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM cur.invoices i WHERE i.id = t.invoice_id)
)
SELECT entity, entity_id, max(amount) AS amount, any_value(currency) AS currency,
       'names no record: ' || string_agg(field, ', ' ORDER BY field) AS detail
FROM broken
GROUP BY entity, entity_id
-- not judged:
-- Records whose reference arrived untyped (a NULL would name no record),
-- lines and transactions whose amount or currency did, and invoices whose
-- list of lines did (its lines are not there to judge).
SELECT u.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('subscriptions', ['customer_id', 'product_plan_id']) u
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type FROM cur.untyped_in('invoices', ['customer_id', 'invoice_lines']) u
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type FROM cur.untyped_in('invoice_lines', ['subscription_charge_id', 'amount']) u
UNION ALL
SELECT l.id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('invoices', ['currency_code']) u JOIN cur.invoice_lines l ON l.invoice_id = u.id
UNION ALL
SELECT u.id, u.table_name, u.field, u.json_type FROM cur.untyped_in('transactions', ['invoice_id', 'amount', 'currency_code']) u
