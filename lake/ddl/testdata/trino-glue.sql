-- billsnap: the tables of s3://lake/billing for trino.
-- Trino reads the catalog billsnap commits to: etc/catalog/billsnap.properties
--   connector.name=iceberg
--   iceberg.catalog.type=glue
--   hive.metastore.glue.catalogid=123456789012
SHOW TABLES FROM billsnap.billsnap;
-- Time travel: SELECT * FROM billsnap.billsnap.invoice_lines FOR VERSION AS OF <snapshot id>.
