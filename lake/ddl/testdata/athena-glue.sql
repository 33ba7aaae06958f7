-- billsnap: the tables of s3://lake/billing for athena.
-- The Glue catalog billsnap commits to holds the tables: database billsnap, nothing to attach.
SELECT count(*) FROM billsnap.invoice_lines;
-- Time travel: FOR VERSION AS OF <snapshot id> or FOR TIMESTAMP AS OF TIMESTAMP '…'.
