-- billsnap: the tables of s3://lake/billing for spark.
-- External Hive-partitioned Parquet tables, one partition per snapshot (snapshot_id).
-- A snapshot is complete when its manifest, _billsnap/manifests/<snapshot_id>.json, exists;
-- _billsnap/latest names the newest. A snapshot_id directory without a manifest is a
-- publish cut short: its files are removed by the next export. Query complete ones only.
-- The history of each table (<table>_history) is published as an Iceberg table only.
-- Each table reads its data/ folder. Snapshots published before billsnap used that layout
-- (<table>/snapshot_id=<id>/) are not in these tables: read them through the Iceberg
-- tables or the manifests until retention removes them.
CREATE DATABASE IF NOT EXISTS `billsnap`;
CREATE TABLE IF NOT EXISTS `billsnap`.`invoices` (
  `id` STRING,
  `invoice_date` TIMESTAMP,
  `total_amount` DECIMAL(18,2),
  `lines` INT,
  `paid` BOOLEAN,
  `_raw` STRING,
  snapshot_id STRING
) USING PARQUET PARTITIONED BY (snapshot_id) LOCATION 's3a://lake/billing/invoices/data';
MSCK REPAIR TABLE `billsnap`.`invoices`;
CREATE TABLE IF NOT EXISTS `billsnap`.`invoice_lines` (
  `id` STRING,
  `invoice_id` STRING,
  `quantity` DECIMAL(18,4),
  `units` BIGINT,
  `rate` DOUBLE,
  `_raw` STRING,
  snapshot_id STRING
) USING PARQUET PARTITIONED BY (snapshot_id) LOCATION 's3a://lake/billing/invoice_lines/data';
MSCK REPAIR TABLE `billsnap`.`invoice_lines`;
