-- billsnap: the tables of s3://lake/billing for duckdb.
-- <table>_history: every version of every record of <table>, its columns then valid_from,
-- valid_to, snapshot_from, snapshot_to (valid_to NULL while current); as of T:
--   WHERE valid_from <= T AND (valid_to IS NULL OR valid_to > T).
INSTALL httpfs; LOAD httpfs; INSTALL aws; LOAD aws;
CREATE OR REPLACE SECRET billsnap_lake (TYPE s3, PROVIDER credential_chain, ENDPOINT '127.0.0.1:9000', USE_SSL false, REGION 'eu-west-1', URL_STYLE 'path');
INSTALL iceberg; LOAD iceberg;
CREATE SCHEMA IF NOT EXISTS "billsnap";
CREATE OR REPLACE VIEW "billsnap"."invoice_lines" AS SELECT * FROM iceberg_scan('s3://lake/billing/invoice_lines/metadata/00002-bb.metadata.json');
CREATE OR REPLACE VIEW "billsnap"."invoices" AS SELECT * FROM iceberg_scan('s3://lake/billing/invoices/metadata/00002-aa.metadata.json');
CREATE OR REPLACE VIEW "billsnap"."invoices_history" AS SELECT * FROM iceberg_scan('s3://lake/billing/invoices_history/metadata/00001-cc.metadata.json');
-- The views read the metadata current when this was printed: print and run them again
-- after an export. Time travel: iceberg_scan('…', snapshot_from_id => ID) or snapshot_from_timestamp => TIMESTAMP.
