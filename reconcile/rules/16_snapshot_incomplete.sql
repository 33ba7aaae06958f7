-- id: snapshot_incomplete
-- severity: critical
-- title: Snapshot incomplete
-- description: A collection whose distinct IDs differ from its TotalCount, that had an ID twice across pages, or whose walk failed. When it fires, the other rules are not trusted. Amount: 0.
SELECT 'collection' AS entity,
       t.table_name AS entity_id,
       0 AS amount,
       NULL AS currency,
       format('collection {} is incomplete after {} walks: {} distinct IDs, TotalCount {}: {}',
              t.table_name, t.walks, t.distinct_ids, t.total_count, coalesce(t.problem, 'the walk failed')) AS detail
FROM snapshot_tables t
WHERE t.snapshot_id = getvariable('snapshot_id') AND t.collection = t.table_name AND NOT t.complete
-- not judged: none: it reads the snapshot's manifest, not its records
