package relations_test

import (
	"bytes"
	"context"
	"database/sql"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/billsnap/billsnap/cmd/internal/relations"
)

// --columns prints what the model's columns relation says of each
// column, and a model published before it had one still lists its
// columns and types, the rest empty.
func TestColumnsAreDescribedByTheModel(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	print := func() string {
		t.Helper()
		var b bytes.Buffer
		if err := relations.PrintColumns(ctx, &b, db, "latest_units_of_measure", "csv"); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if _, err := db.Exec("CREATE TABLE latest_units_of_measure (snapshot_id VARCHAR, name VARCHAR)"); err != nil {
		t.Fatal(err)
	}
	if got, want := print(), "name,type,description,source_field\nsnapshot_id,VARCHAR,,\nname,VARCHAR,,\n"; got != want {
		t.Errorf("without a dictionary:\n%s\nwant:\n%s", got, want)
	}
	if _, err := db.Exec(`CREATE VIEW codes AS SELECT 1 AS code;
		CREATE VIEW columns AS SELECT * FROM (VALUES ('latest_units_of_measure', 'name', 'VARCHAR', 'the unit''s name', 'Name'),
			('latest_units_of_measure', 'snapshot_id', 'VARCHAR', 'the snapshot', NULL)) c(table_name, column_name, type, description, source_field)`); err != nil {
		t.Fatal(err)
	}
	if got, want := print(), "name,type,description,source_field\nsnapshot_id,VARCHAR,the snapshot,\nname,VARCHAR,the unit's name,Name\n"; got != want {
		t.Errorf("with a dictionary:\n%s\nwant:\n%s", got, want)
	}
}
