package snapshot

import (
	"database/sql"
	"strings"
	"testing"
)

// rowCount runs q on db and counts its rows.
func rowCount(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	rows, err := db.Query(strings.TrimSpace(q))
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	return n
}
