-- id: missing_product_charge
-- severity: medium
-- title: Missing product charge
-- description: A product plan charge of an Activated subscription's plan for which the subscription has no active charge. Entity ID: SubscriptionID/ProductPlanChargeID. Amount: DefaultAmount × the price in the subscription's currency.
SELECT 'subscription_product' AS entity,
       s.id || '/' || ppc.id AS entity_id,
       coalesce(ppc.default_amount * p.unit_price, 0) AS amount,
       s.currency_code AS currency,
       format('activated subscription {} on plan {} has no active charge for product {} ({}, default quantity {})',
              s.id, s.product_plan_id, ppc.id, ppc.full_name, ppc.default_amount) AS detail
FROM cur.subscriptions s
JOIN cur.product_plan_charges ppc ON ppc.product_plan_id = s.product_plan_id
LEFT JOIN cur.prices p ON p.price_key = cur.price_key(ppc.id, s.currency_code)
WHERE s.state = 'Activated'
  AND NOT EXISTS (SELECT 1 FROM cur.subscription_charges c
                  WHERE c.subscription_id = s.id AND c.product_plan_charge_id = ppc.id AND c.status = 1)
-- not judged:
-- The (subscription, product) pairs of a subscription whose state or
-- currency arrived untyped; of one whose plan did, every product of every
-- plan; pairs whose price may come from a pricing with an untyped value.
SELECT s.id || '/' || ppc.id AS entity_id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('subscriptions', ['state', 'currency_code']) u
JOIN cur.subscriptions s ON s.id = u.id
JOIN cur.product_plan_charges ppc ON ppc.product_plan_id = s.product_plan_id
UNION ALL
SELECT s.id || '/' || ppc.id, u.table_name, u.field, u.json_type
FROM cur.untyped_in('subscriptions', ['product_plan_id']) u
JOIN cur.subscriptions s ON s.id = u.id, cur.product_plan_charges ppc
UNION ALL
SELECT s.id || '/' || u.product_plan_charge_id, u.table_name, u.field, u.json_type
FROM cur.untyped_prices() u
JOIN cur.product_plan_charges ppc ON ppc.id = u.product_plan_charge_id
JOIN cur.subscriptions s ON s.product_plan_id = ppc.product_plan_id
WHERE (s.state = 'Activated' OR s.state IS NULL)
  AND (u.currency_code IS NULL OR s.currency_code IS NULL OR s.currency_code = u.currency_code)
