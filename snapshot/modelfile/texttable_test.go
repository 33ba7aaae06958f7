package modelfile

import (
	"database/sql"
	"fmt"
	"slices"
	"testing"
)

// A text table holds its rows in their order, NULL apart from the empty
// string and quotes as written, whether it went as one literal or, for a
// value holding a separator, as a list a column.
func TestATextTableHoldsItsRowsInOrder(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	null := sql.NullString{}
	rows := [][]sql.NullString{
		{text("customers"), text("it's"), null},
		{text(""), null, text("a, b")},
		{text("last"), text("\n"), text("")},
	}
	withSep := slices.Clone(rows)
	withSep = append(withSep, []sql.NullString{text("a" + valueSep + "b"), null, text("c")})
	for _, c := range []struct {
		name string
		rows [][]sql.NullString
	}{{"literal", rows}, {"lists", withSep}, {"none", nil}} {
		if _, err := db.Exec(textTable(c.name, []string{"x", "y", "z"}, c.rows)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := readText(t, db, c.name)
		if want := render(c.rows); !slices.Equal(got, want) {
			t.Errorf("%s holds\n%q\nwant\n%q", c.name, got, want)
		}
	}
}

// readText is table's rows, a string each, in the table's order.
func readText(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rs, err := db.Query("SELECT x, y, z FROM " + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		r := make([]sql.NullString, 3)
		if err := rs.Scan(&r[0], &r[1], &r[2]); err != nil {
			t.Fatal(err)
		}
		out = append(out, render([][]sql.NullString{r})...)
	}
	return out
}

// render is rows as strings, NULL apart.
func render(rows [][]sql.NullString) []string {
	var out []string
	for _, r := range rows {
		s := ""
		for _, v := range r {
			if v.Valid {
				s += fmt.Sprintf("%q ", v.String)
			} else {
				s += "NULL "
			}
		}
		out = append(out, s)
	}
	return out
}
