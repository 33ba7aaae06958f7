-- billsnap: the tables of s3://lake/billing for athena.
-- External Hive-partitioned Parquet tables, one partition per snapshot (snapshot_id).
-- A snapshot is complete when its manifest, _billsnap/manifests/<snapshot_id>.json, exists;
-- _billsnap/latest names the newest. A snapshot_id directory without a manifest is a
-- publish cut short: its files are removed by the next export. Query complete ones only.
CREATE DATABASE IF NOT EXISTS billsnap;
CREATE EXTERNAL TABLE IF NOT EXISTS billsnap.invoices (
  id string,
  invoice_number string,
  customer_id string,
  subscription_id string,
  invoice_date timestamp,
  due_date timestamp,
  currency_code string,
  total_amount decimal(18,2),
  payment_date timestamp,
  _raw string
) PARTITIONED BY (snapshot_id string) STORED AS PARQUET LOCATION 's3://lake/billing/invoices/';
MSCK REPAIR TABLE billsnap.invoices;
CREATE EXTERNAL TABLE IF NOT EXISTS billsnap.invoice_lines (
  id string,
  invoice_id string,
  subscription_charge_id string,
  product_plan_charge_id string,
  quantity decimal(18,4),
  unit_price decimal(18,2),
  amount decimal(18,2),
  text string,
  _raw string
) PARTITIONED BY (snapshot_id string) STORED AS PARQUET LOCATION 's3://lake/billing/invoice_lines/';
MSCK REPAIR TABLE billsnap.invoice_lines;
