-- billsnap: the tables of s3://lake/billing for spark.
-- Spark reads the catalog billsnap commits to (the Iceberg runtime on the classpath):
--   --conf spark.sql.catalog.billsnap=org.apache.iceberg.spark.SparkCatalog
--   --conf spark.sql.catalog.billsnap.type=rest
--   --conf spark.sql.catalog.billsnap.uri=https://catalog.example.com/api
--   --conf spark.sql.catalog.billsnap.warehouse=analytics
--   --conf spark.sql.catalog.billsnap.s3.endpoint=http://127.0.0.1:9000
--   --conf spark.sql.catalog.billsnap.s3.path-style-access=true
SHOW TABLES IN billsnap.billsnap;
-- Time travel: SELECT * FROM billsnap.billsnap.invoice_lines VERSION AS OF <snapshot id> (or TIMESTAMP AS OF '…').
