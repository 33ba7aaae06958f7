-- id: multiple_active_charges
-- severity: high
-- title: Multiple active charges
-- description: A ReferenceID that more than one active charge (Status 1) carries. Amount: 0.
-- The ids are listed only for the references that more than one active
-- charge carries: listing them for every reference held them all in
-- memory (a snapshot of 10M records ran out of DuckDB's 256 MB).
WITH active AS (
  SELECT c.id, c.reference_id, c.subscription_id
  FROM cur.subscription_charges c
  WHERE c.status = 1 AND c.reference_id IS NOT NULL
),
repeated AS (
  SELECT reference_id FROM active GROUP BY reference_id HAVING count(*) > 1
)
SELECT 'reference' AS entity,
       a.reference_id AS entity_id,
       0 AS amount,
       min(s.currency_code) AS currency,
       format('{} active charges carry reference {}: {}', count(*), a.reference_id, string_agg(a.id, ', ' ORDER BY a.id)) AS detail
FROM active a SEMI JOIN repeated USING (reference_id)
LEFT JOIN cur.subscriptions s ON s.id = a.subscription_id
GROUP BY a.reference_id
-- not judged: none: it decides on the spec's fields alone, and its amount is 0
