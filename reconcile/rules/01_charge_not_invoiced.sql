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
