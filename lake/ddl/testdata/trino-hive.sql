-- billsnap: the tables of s3://lake/billing for trino.
-- External Hive-partitioned Parquet tables, one partition per snapshot (snapshot_id).
-- A snapshot is complete when its manifest, _billsnap/manifests/<snapshot_id>.json, exists;
-- _billsnap/latest names the newest. A snapshot_id directory without a manifest is a
-- publish cut short: its files are removed by the next export. Query complete ones only.
-- The history of each table (<table>_history) is published as an Iceberg table only.
-- Each table reads its data/ folder. Snapshots published before billsnap used that layout
-- (<table>/snapshot_id=<id>/) are not in these tables: read them through the Iceberg
-- tables or the manifests until retention removes them.
CREATE SCHEMA IF NOT EXISTS hive."billsnap";
CREATE TABLE hive."billsnap"."invoices" (
  "id" varchar,
  "invoice_date" timestamp(6),
  "total_amount" decimal(18,2),
  "lines" integer,
  "paid" boolean,
  "_raw" varchar,
  snapshot_id varchar
) WITH (external_location = 's3://lake/billing/invoices/data', format = 'PARQUET', partitioned_by = ARRAY['snapshot_id']);
CALL hive.system.sync_partition_metadata('billsnap', 'invoices', 'FULL');
CREATE TABLE hive."billsnap"."invoice_lines" (
  "id" varchar,
  "invoice_id" varchar,
  "quantity" decimal(18,4),
  "units" bigint,
  "rate" double,
  "_raw" varchar,
  snapshot_id varchar
) WITH (external_location = 's3://lake/billing/invoice_lines/data', format = 'PARQUET', partitioned_by = ARRAY['snapshot_id']);
CALL hive.system.sync_partition_metadata('billsnap', 'invoice_lines', 'FULL');
