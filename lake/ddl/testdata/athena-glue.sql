-- billsnap: the tables of s3://lake/billing for athena.
-- <table>_history: every version of every record of <table>, its columns then valid_from,
-- valid_to, snapshot_from, snapshot_to (valid_to NULL while current); as of T:
--   WHERE valid_from <= T AND (valid_to IS NULL OR valid_to > T).
-- The Glue catalog billsnap commits to holds the tables: database "billsnap", nothing to attach.
SELECT count(*) FROM "billsnap"."invoice_lines";
-- Time travel: FOR VERSION AS OF <snapshot id> or FOR TIMESTAMP AS OF TIMESTAMP '…'.
