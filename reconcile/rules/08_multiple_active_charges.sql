-- id: multiple_active_charges
-- severity: high
-- title: Multiple active charges
-- description: A ReferenceID that more than one active charge (Status 1) carries. Amount: 0.
SELECT 'reference' AS entity,
       c.reference_id AS entity_id,
       0 AS amount,
       min(s.currency_code) AS currency,
       format('{} active charges carry reference {}: {}', count(*), c.reference_id, string_agg(c.id, ', ' ORDER BY c.id)) AS detail
FROM cur.subscription_charges c
LEFT JOIN cur.subscriptions s ON s.id = c.subscription_id
WHERE c.status = 1 AND c.reference_id IS NOT NULL
GROUP BY c.reference_id
HAVING count(*) > 1
-- not judged: none: it decides on the spec's fields alone, and its amount is 0
