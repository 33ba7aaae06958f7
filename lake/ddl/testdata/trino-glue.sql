-- billsnap: the tables of s3://lake/billing for trino.
-- Trino reads the catalog billsnap commits to: etc/catalog/billsnap.properties
--   connector.name=iceberg
--   iceberg.catalog.type=glue
SHOW TABLES FROM billsnap.billsnap;
-- Time travel: SELECT * FROM billsnap.billsnap.invoice_lines FOR VERSION AS OF <snapshot id>.
