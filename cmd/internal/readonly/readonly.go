// Package readonly is billsnap query's read-only guard. [LockDown]
// confines a read model's DuckDB to the store's own files, writing none,
// with no setting left changeable. [RefuseWrites] refuses, before it runs,
// a statement that would write or change something, judged by its
// prepared statement's type.
package readonly

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/snapshot/state"
	"github.com/billsnap/billsnap/usage"
)

// readsOnly tells whether a statement of this kind is one query runs: a
// SELECT (and DESCRIBE, SHOW and SUMMARIZE, which DuckDB prepares as
// one), EXPLAIN, or a PRAGMA or CALL of a table function (a PRAGMA that
// sets something fails on the locked configuration).
func readsOnly(kind duckdb.StmtType) bool {
	switch kind {
	case duckdb.STATEMENT_TYPE_SELECT, duckdb.STATEMENT_TYPE_EXPLAIN, duckdb.STATEMENT_TYPE_PRAGMA, duckdb.STATEMENT_TYPE_CALL:
		return true
	}
	return false
}

// LockDown makes db, a read model from readmodel.Open, one that can read
// the store in dir and nothing else, and write nowhere: DuckDB reads and
// writes files only under dir (allowed_directories; enable_external_access
// off, so no other file, no URL, no extension installed or loaded), spills
// nothing to a temporary directory, and no statement can change that
// (lock_configuration). The read model itself is attached read-only.
// A write under dir (COPY … TO into the store) is refused by
// RefuseWrites, before it runs.
func LockDown(ctx context.Context, db *sql.DB, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	dirs := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		dirs = append(dirs, real)
	}
	quoted := make([]string, len(dirs))
	for i, d := range dirs {
		quoted[i] = state.SQLString(d + string(filepath.Separator))
	}
	for _, q := range []string{
		"SET temp_directory = ''",
		"SET allowed_directories = [" + strings.Join(quoted, ", ") + "]",
		"SET enable_external_access = false",
		"SET lock_configuration = true",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("making the read model read-only (%s): %w", q, err)
		}
	}
	return nil
}

// RefuseWrites is a usage error when statement is not one that only
// reads (readsOnly): a COPY, INSERT, CREATE, ATTACH, INSTALL, SET
// and the rest are refused before anything runs. A statement that does
// not prepare is left to readmodel.Query, which says why.
func RefuseWrites(ctx context.Context, db *sql.DB, statement string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var kind duckdb.StmtType
	err = conn.Raw(func(dc any) error {
		st, err := dc.(driver.Conn).Prepare(statement)
		if err != nil {
			return nil
		}
		defer st.Close()
		kind, err = st.(*duckdb.Stmt).StatementType()
		return err
	})
	if err != nil || kind == duckdb.STATEMENT_TYPE_INVALID || readsOnly(kind) {
		return err
	}
	return usage.Errorf("query only reads: %s writes or changes something (it runs SELECT, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, PRAGMA and CALL)", statementWord(statement))
}

// statementWord is the first word of statement, upper case: what the
// refusal names.
func statementWord(statement string) string {
	f := strings.Fields(statement)
	if len(f) == 0 {
		return "it"
	}
	return strings.ToUpper(strings.TrimLeft(f[0], "("))
}
