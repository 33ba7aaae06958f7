-- billsnap: the tables of s3://lake/billing for duckdb.
-- External Hive-partitioned Parquet tables, one partition per snapshot (snapshot_id).
-- A snapshot is complete when its manifest, _billsnap/manifests/<snapshot_id>.json, exists;
-- _billsnap/latest names the newest. A snapshot_id directory without a manifest is a
-- publish cut short: its files are removed by the next export. Query complete ones only.
-- The history of each table (<table>_history) is published as an Iceberg table only.
INSTALL httpfs; LOAD httpfs; INSTALL aws; LOAD aws;
CREATE OR REPLACE SECRET billsnap_lake (TYPE s3, PROVIDER credential_chain, ENDPOINT '127.0.0.1:9000', USE_SSL false, REGION 'eu-west-1', URL_STYLE 'path');
CREATE SCHEMA IF NOT EXISTS "billsnap";
CREATE OR REPLACE VIEW "billsnap".published AS SELECT snapshot_id FROM read_json('s3://lake/billing/_billsnap/manifests/*.json', columns = {snapshot_id: 'VARCHAR'});
CREATE OR REPLACE VIEW "billsnap"."invoices" AS SELECT * FROM read_parquet('s3://lake/billing/invoices/**/snapshot_id=*/*.parquet', hive_partitioning = true, hive_types = {snapshot_id: VARCHAR}, union_by_name = true) WHERE snapshot_id IN (SELECT snapshot_id FROM "billsnap".published);
CREATE OR REPLACE VIEW "billsnap"."latest_invoices" AS SELECT * FROM "billsnap"."invoices" WHERE snapshot_id = (SELECT trim(content, chr(10) || ' ') FROM read_text('s3://lake/billing/_billsnap/latest'));
CREATE OR REPLACE VIEW "billsnap"."invoice_lines" AS SELECT * FROM read_parquet('s3://lake/billing/invoice_lines/**/snapshot_id=*/*.parquet', hive_partitioning = true, hive_types = {snapshot_id: VARCHAR}, union_by_name = true) WHERE snapshot_id IN (SELECT snapshot_id FROM "billsnap".published);
CREATE OR REPLACE VIEW "billsnap"."latest_invoice_lines" AS SELECT * FROM "billsnap"."invoice_lines" WHERE snapshot_id = (SELECT trim(content, chr(10) || ' ') FROM read_text('s3://lake/billing/_billsnap/latest'));
