-- id: missed_billing_run
-- severity: critical
-- title: Missed billing run
-- description: An active charge (Status 1) with Amount above zero on an Activated subscription whose NextChargeDate is older than as-of minus the grace period. Amount: Amount × the price of its product in the subscription's currency.
SELECT 'subscription_charge' AS entity,
       c.id AS entity_id,
       coalesce(c.amount * p.unit_price, 0) AS amount,
       s.currency_code AS currency,
       format('active charge of {} × product {} on subscription {} was due {} and has not been charged',
              cur.qty(c.amount), c.product_plan_charge_id, s.id, strftime(c.next_charge_date, '%Y-%m-%d %H:%M UTC')) AS detail
FROM cur.subscription_charges c
JOIN cur.subscriptions s ON s.id = c.subscription_id
LEFT JOIN cur.prices p ON p.price_key = cur.price_key(c.product_plan_charge_id, s.currency_code)
WHERE c.status = 1 AND c.amount > 0 AND s.state = 'Activated'
  AND c.next_charge_date < getvariable('as_of') - getvariable('grace')
-- not judged:
-- Overdue active charges whose subscription's state or currency arrived
-- untyped, or whose price may come from a pricing with an untyped value.
WITH candidates AS (
  SELECT c.id, c.subscription_id, c.product_plan_charge_id FROM cur.subscription_charges c
  WHERE c.status = 1 AND c.amount > 0 AND c.next_charge_date < getvariable('as_of') - getvariable('grace')
)
SELECT c.id AS entity_id, u.table_name, u.field, u.json_type
FROM candidates c JOIN cur.untyped_in('subscriptions', ['state', 'currency_code']) u ON u.id = c.subscription_id
UNION ALL
SELECT c.id, u.table_name, u.field, u.json_type
FROM cur.untyped_prices() u
JOIN candidates c ON c.product_plan_charge_id = u.product_plan_charge_id
LEFT JOIN cur.subscriptions s ON s.id = c.subscription_id
WHERE u.currency_code IS NULL OR s.currency_code IS NULL OR s.currency_code = u.currency_code
