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
