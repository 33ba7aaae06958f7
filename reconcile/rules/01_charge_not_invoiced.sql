-- id: charge_not_invoiced
-- severity: high
-- title: Charge not invoiced
-- description: A charged subscription charge (Status 7) with Amount above zero that no invoice line names. Amount: Amount × the price of its product in the subscription's currency. With a period, charges charged in that month.
SELECT 'subscription_charge' AS entity,
       c.id AS entity_id,
       coalesce(c.amount * p.unit_price, 0) AS amount,
       s.currency_code AS currency,
       format('charge of {} × product {} on subscription {}, charged {}, is on no invoice line{}',
              cur.qty(c.amount), c.product_plan_charge_id, c.subscription_id, strftime(c.next_charge_date, '%Y-%m-%d'),
              CASE WHEN p.unit_price IS NULL THEN ' (no price found, amount 0)' ELSE '' END) AS detail
FROM cur.subscription_charges c
LEFT JOIN cur.subscriptions s ON s.id = c.subscription_id
LEFT JOIN cur.prices p ON p.price_key = cur.price_key(c.product_plan_charge_id, s.currency_code)
WHERE c.status = 7 AND c.amount > 0
  AND NOT EXISTS (SELECT 1 FROM cur.invoice_lines l WHERE l.subscription_charge_id = c.id)
  AND cur.in_period(c.next_charge_date)
-- not judged:
-- Charges it would find, or whose amount it would get, only through a
-- value that arrived untyped: the subscription's currency, a pricing the
-- price may come from, a line (or a list of lines) that may name the charge.
WITH candidates AS (
  SELECT c.id, c.subscription_id, c.product_plan_charge_id FROM cur.subscription_charges c
  WHERE c.status = 7 AND c.amount > 0 AND cur.in_period(c.next_charge_date)
    AND NOT EXISTS (SELECT 1 FROM cur.invoice_lines l WHERE l.subscription_charge_id = c.id)
)
SELECT c.id AS entity_id, u.table_name, u.field, u.json_type
FROM candidates c JOIN cur.untyped_in('subscriptions', ['currency_code']) u ON u.id = c.subscription_id
UNION ALL
SELECT c.id, u.table_name, u.field, u.json_type
FROM cur.untyped_prices() u
JOIN candidates c ON c.product_plan_charge_id = u.product_plan_charge_id
LEFT JOIN cur.subscriptions s ON s.id = c.subscription_id
WHERE u.currency_code IS NULL OR s.currency_code IS NULL OR s.currency_code = u.currency_code
UNION ALL
SELECT c.id, u.table_name, u.field, u.json_type
FROM candidates c,
     (SELECT DISTINCT table_name, field, json_type FROM cur.untyped
      WHERE (table_name = 'invoice_lines' AND column_name = 'subscription_charge_id')
         OR (table_name = 'invoices' AND column_name = 'invoice_lines')) u
