-- billsnap: the tables of s3://lake/billing for trino.
-- <table>_history: every version of every record of <table>, its columns then valid_from,
-- valid_to, snapshot_from, snapshot_to (valid_to NULL while current); as of T:
--   WHERE valid_from <= T AND (valid_to IS NULL OR valid_to > T).
-- Trino reads the catalog billsnap commits to: etc/catalog/billsnap.properties
--   connector.name=iceberg
--   iceberg.catalog.type=glue
--   hive.metastore.glue.catalogid=123456789012
SHOW TABLES FROM billsnap."billsnap";
-- Time travel: SELECT * FROM billsnap."billsnap"."invoice_lines" FOR VERSION AS OF <snapshot id>.
