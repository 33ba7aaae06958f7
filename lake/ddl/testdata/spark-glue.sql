-- billsnap: the tables of s3://lake/billing for spark.
-- Spark reads the catalog billsnap commits to (the Iceberg runtime on the classpath):
--   --conf spark.sql.catalog.billsnap=org.apache.iceberg.spark.SparkCatalog
--   --conf spark.sql.catalog.billsnap.type=glue
--   --conf spark.sql.catalog.billsnap.glue.id=123456789012
--   --conf spark.sql.catalog.billsnap.warehouse=s3a://lake/billing
SHOW TABLES IN billsnap.billsnap;
-- Time travel: SELECT * FROM billsnap.billsnap.invoice_lines VERSION AS OF <snapshot id> (or TIMESTAMP AS OF '…').
