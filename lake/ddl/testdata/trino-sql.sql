-- billsnap: the tables of s3://lake/billing for trino.
-- <table>_history: every version of every record of <table>, its columns then valid_from,
-- valid_to, snapshot_from, snapshot_to (valid_to NULL while current); as of T:
--   WHERE valid_from <= T AND (valid_to IS NULL OR valid_to > T).
-- Registers the tables with Trino's Iceberg catalog (here named iceberg) at their current
-- metadata. A later export's snapshots appear after CALL iceberg.system.unregister_table(...)
-- and this again; a REST or Glue catalog shared with billsnap needs neither.
CREATE SCHEMA IF NOT EXISTS iceberg."billsnap";
CALL iceberg.system.register_table(schema_name => 'billsnap', table_name => 'invoice_lines', table_location => 's3://lake/billing/invoice_lines', metadata_file_name => '00002-bb.metadata.json');
CALL iceberg.system.register_table(schema_name => 'billsnap', table_name => 'invoices', table_location => 's3://lake/billing/invoices', metadata_file_name => '00002-aa.metadata.json');
CALL iceberg.system.register_table(schema_name => 'billsnap', table_name => 'invoices_history', table_location => 's3://lake/billing/invoices_history', metadata_file_name => '00001-cc.metadata.json');
-- Time travel: SELECT * FROM iceberg."billsnap"."invoice_lines" FOR VERSION AS OF <snapshot id> (or FOR TIMESTAMP AS OF …);
-- the snapshots and the billsnap snapshot each holds: SELECT snapshot_id, committed_at, summary['billsnap.snapshot-id'] FROM iceberg."billsnap"."invoice_lines$snapshots";
