-- billsnap: the tables of s3://lake/billing for athena.
-- External Hive-partitioned Parquet tables, one partition per snapshot (snapshot_id).
-- A snapshot is complete when its manifest, _billsnap/manifests/<snapshot_id>.json, exists;
-- _billsnap/latest names the newest. A snapshot_id directory without a manifest is a
-- publish cut short: its files are removed by the next export. Query complete ones only.
-- The history of each table (<table>_history) is published as an Iceberg table only.
-- Each table reads its data/ folder. Snapshots published before billsnap used that layout
-- (<table>/snapshot_id=<id>/) are not in these tables: read them through the Iceberg
-- tables or the manifests until retention removes them.
CREATE DATABASE IF NOT EXISTS `billsnap`;
CREATE EXTERNAL TABLE IF NOT EXISTS `billsnap`.`invoices` (
  `id` string,
  `invoice_date` timestamp,
  `total_amount` decimal(18,2),
  `lines` int,
  `paid` boolean,
  `_raw` string
) PARTITIONED BY (snapshot_id string) STORED AS PARQUET LOCATION 's3://lake/billing/invoices/data/';
MSCK REPAIR TABLE `billsnap`.`invoices`;
CREATE EXTERNAL TABLE IF NOT EXISTS `billsnap`.`invoice_lines` (
  `id` string,
  `invoice_id` string,
  `quantity` decimal(18,4),
  `units` bigint,
  `rate` double,
  `_raw` string
) PARTITIONED BY (snapshot_id string) STORED AS PARQUET LOCATION 's3://lake/billing/invoice_lines/data/';
MSCK REPAIR TABLE `billsnap`.`invoice_lines`;
