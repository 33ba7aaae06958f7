package history

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/snapshot/state"
)

// Input is what one step of one table reads and where it writes.
type Input struct {
	Table catalog.Table
	To    string    // the complete snapshot that moves history
	At    time.Time // its time (TimeOf)
	// Rows is the relation of To's rows: id and _raw (JSON, or its text)
	// at least.
	Rows string
	// Previous is the step before ("" for the base); PreviousRows the
	// relation of its rows, every column as a snapshot's Parquet has them
	// (modelfile.ParquetText); PreviousIndex its index file.
	Previous, PreviousRows, PreviousIndex string
	Root                                  string // where the step's files go
}

// Take takes the step in on conn (whose database reads the relations
// named; its temporary tables hist_* are its own) and writes its files
// under in.Root. It returns what it counted, and the files it wrote
// (Step.Files), which the caller makes durable together (fileutil.SyncFiles)
// before anything lists the step: no reader sees a step's files before
// the state lists it.
func Take(ctx context.Context, conn *sql.Conn, in Input) (Step, error) {
	step := Step{Table: in.Table.Name, To: in.To, At: in.At, Previous: in.Previous}
	for _, kind := range Folders() {
		dir := filepath.Join(in.Root, kind, in.Table.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return step, fmt.Errorf("%s: %w", step, err)
		}
		os.Remove(File(in.Root, kind, in.Table.Name, in.To)) // of an attempt before (a re-walk)
	}
	var err error
	if in.Previous == "" {
		err = base(ctx, conn, in, &step)
	} else {
		err = compare(ctx, conn, in, &step)
	}
	conn.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS hist_new; DROP TABLE IF EXISTS hist_diff; DROP TABLE IF EXISTS hist_old; DROP TABLE IF EXISTS hist_upd")
	if err != nil {
		return step, fmt.Errorf("%s: %w", step, err)
	}
	return step, nil
}

// base is the first step of a table: every record starts a version at
// To, and no change is recorded.
func base(ctx context.Context, conn *sql.Conn, in Input, step *Step) error {
	q := fmt.Sprintf("SELECT id, %s AS row_hash, %s AS snapshot_from, %s AS valid_from FROM (%s)",
		rowHash("_raw"), state.SQLString(in.To), timeSQL(in.At), in.Rows)
	n, err := step.copy(ctx, conn, q, File(in.Root, Current, in.Table.Name, in.To))
	step.Inserted = n
	return err
}

// compare is a step from Previous: the records whose hash differs from
// the index's are compared field by field; a version closed goes to the
// versions file, each change to the changes file, and every current
// version to the new index.
func compare(ctx context.Context, conn *sql.Conn, in Input, step *Step) error {
	prevIndex := fmt.Sprintf("read_parquet(%s, hive_partitioning = false)", state.SQLString(in.PreviousIndex))
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE hist_new AS SELECT id, %s AS row_hash FROM (%s)", rowHash("_raw"), in.Rows)); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`CREATE OR REPLACE TEMP TABLE hist_diff AS
			SELECT coalesce(n.id, o.id) AS id, o.id IS NULL AS ins, n.id IS NULL AS del, o.snapshot_from, o.valid_from
			FROM hist_new n FULL JOIN %s o ON n.id = o.id WHERE n.row_hash IS DISTINCT FROM o.row_hash`, prevIndex)); err != nil {
		return err
	}
	var differ int64 // (DuckDB's CREATE TABLE AS reports no rows affected)
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM hist_diff").Scan(&differ); err != nil {
		return err
	}
	if differ == 0 { // the index stays as it was: the same file, under the step's name too
		return step.link(in.PreviousIndex, File(in.Root, Current, in.Table.Name, in.To))
	}
	stmts := []string{
		fmt.Sprintf(`CREATE OR REPLACE TEMP TABLE hist_old AS
			SELECT r.* EXCLUDE (snapshot_id), d.valid_from, d.snapshot_from FROM (%s) r JOIN hist_diff d ON r.id = d.id WHERE NOT d.ins`, in.PreviousRows),
		fmt.Sprintf(`CREATE OR REPLACE TEMP TABLE hist_upd AS
			SELECT o.id, %s AS fields, o._raw AS old_raw, n._raw AS new_raw FROM hist_old o JOIN (SELECT id, _raw FROM (%s)) n ON o.id = n.id`,
			ChangedFields("o._raw", "n._raw"), in.Rows),
	}
	if err := execAll(ctx, conn, stmts); err != nil {
		return err
	}
	if err := writeVersions(ctx, conn, in, step); err != nil {
		return err
	}
	if err := writeIndex(ctx, conn, in, prevIndex, step); err != nil {
		return err
	}
	return writeChanges(ctx, conn, in, step)
}

// execAll runs stmts on conn, in order.
func execAll(ctx context.Context, conn *sql.Conn, stmts []string) error {
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// writeVersions writes the versions To closed: of the records it lacks,
// and of those whose fields changed.
func writeVersions(ctx context.Context, conn *sql.Conn, in Input, step *Step) error {
	q := fmt.Sprintf(`SELECT o.* EXCLUDE (valid_from, snapshot_from), o.valid_from, %s AS valid_to, o.snapshot_from, %s AS snapshot_to
		FROM hist_old o LEFT JOIN hist_upd u ON o.id = u.id WHERE u.id IS NULL OR len(u.fields) > 0`,
		timeSQL(in.At), state.SQLString(in.To))
	return step.copyNonEmpty(ctx, conn, q, File(in.Root, Versions, in.Table.Name, in.To))
}

// writeIndex writes the index after the step: every record of To, its
// hash, and where its version began (To for a new version; the version
// before's start for a record unchanged, or sent again with the same
// fields).
func writeIndex(ctx context.Context, conn *sql.Conn, in Input, prevIndex string, step *Step) error {
	q := fmt.Sprintf(`SELECT n.id, n.row_hash,
			CASE WHEN o.id IS NULL OR (n.row_hash <> o.row_hash AND coalesce(len(u.fields), 1) > 0) THEN %[1]s ELSE o.snapshot_from END AS snapshot_from,
			CASE WHEN o.id IS NULL OR (n.row_hash <> o.row_hash AND coalesce(len(u.fields), 1) > 0) THEN %[2]s ELSE o.valid_from END AS valid_from
		FROM hist_new n LEFT JOIN %[3]s o ON n.id = o.id LEFT JOIN hist_upd u ON n.id = u.id`,
		state.SQLString(in.To), timeSQL(in.At), prevIndex)
	_, err := step.copy(ctx, conn, q, File(in.Root, Current, in.Table.Name, in.To))
	return err
}

// writeChanges writes what To changed and counts it into step.
func writeChanges(ctx context.Context, conn *sql.Conn, in Input, step *Step) error {
	common := fmt.Sprintf("%s AS from_snapshot, %s AS to_snapshot, %s AS \"at\"", state.SQLString(in.Previous), state.SQLString(in.To), timeSQL(in.At))
	name := state.SQLString(in.Table.Name)
	q := fmt.Sprintf(`SELECT %[1]s AS "table", id, 'insert' AS op, NULL::VARCHAR[] AS fields, %[2]s, NULL::JSON AS old_values, NULL::JSON AS new_values FROM hist_diff WHERE ins
		UNION ALL SELECT %[1]s, id, 'update', fields, %[2]s, %[3]s, %[4]s FROM hist_upd WHERE len(fields) > 0
		UNION ALL SELECT %[1]s, id, 'delete', NULL, %[2]s, NULL, NULL FROM hist_diff WHERE del
		ORDER BY op, id`, name, common, FieldValues("old_raw", "fields"), FieldValues("new_raw", "fields"))
	err := conn.QueryRowContext(ctx, `SELECT count(*) FILTER (ins), count(*) FILTER (del) FROM hist_diff`).Scan(&step.Inserted, &step.Deleted)
	if err == nil {
		err = conn.QueryRowContext(ctx, "SELECT count(*) FILTER (len(fields) > 0) FROM hist_upd").Scan(&step.Updated)
	}
	if err != nil {
		return err
	}
	if step.Inserted+step.Updated+step.Deleted == 0 {
		return nil
	}
	_, err = step.copy(ctx, conn, q, File(in.Root, Changes, in.Table.Name, in.To))
	return err
}

// copyNonEmpty writes query's rows to path when there are any (copy).
func (s *Step) copyNonEmpty(ctx context.Context, conn *sql.Conn, query, path string) error {
	var n int64
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM ("+query+")").Scan(&n); err != nil || n == 0 {
		return err
	}
	_, err := s.copy(ctx, conn, query, path)
	return err
}

// link gives the file at old the name path too (a hard link), and adds
// it to the step's files.
func (s *Step) link(old, path string) error {
	os.Remove(path) // of an attempt cut short
	if err := os.Link(old, path); err != nil {
		return err
	}
	s.Files = append(s.Files, path)
	return nil
}

// copy writes query's rows to a Parquet file at path, adds it to the
// step's files and returns how many rows it wrote.
func (s *Step) copy(ctx context.Context, conn *sql.Conn, query, path string) (int64, error) {
	res, err := conn.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, COMPRESSION zstd)", query, state.SQLString(path)))
	if err != nil {
		return 0, err
	}
	s.Files = append(s.Files, path)
	return res.RowsAffected()
}

// rowHash is the hash a record's version is told by: of the record as
// the service sent it.
func rowHash(raw string) string { return "hash(CAST(" + raw + " AS VARCHAR))" }

// timeSQL is t as a TIMESTAMPTZ literal.
func timeSQL(t time.Time) string {
	return "TIMESTAMPTZ " + state.SQLString(t.UTC().Format("2006-01-02 15:04:05.999999Z"))
}

// pointer is the JSON pointer of the top-level member named by the SQL
// expression k (RFC 6901: ~ and / escaped).
func pointer(k string) string {
	return "'/' || replace(replace(" + k + ", '~', '~0'), '/', '~1')"
}

// ChangedFields is the SQL expression of the top-level members of two
// JSON records (old and new, SQL expressions) whose values differ, in
// order: the service's names of the fields that changed, a member one
// record lacks included. Values compare as JSON, whitespace aside.
func ChangedFields(old, new string) string {
	keys := fmt.Sprintf("list_distinct(list_concat(coalesce(try(json_keys(%s)), []), coalesce(try(json_keys(%s)), [])))", old, new)
	return fmt.Sprintf("list_sort(list_filter(%s, k -> json_extract(%s, %s) IS DISTINCT FROM json_extract(%s, %s)))",
		keys, old, pointer("k"), new, pointer("k"))
}

// FieldValues is the SQL expression of a JSON object of record's (a JSON
// SQL expression) values of fields (a VARCHAR[] expression), a member
// the record lacks as null.
func FieldValues(record, fields string) string {
	return fmt.Sprintf("to_json(map_from_entries(list_transform(%s, k -> {'key': k, 'value': json_extract(%s, %s)})))",
		fields, record, pointer("k"))
}
