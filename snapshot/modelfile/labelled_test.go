package modelfile

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/catalog"
)

// A view's labels stand beside their columns whatever the files kept
// hold: a column the fields key added that they lack is not named, and a
// column they have that the catalogue no longer has is kept, before _raw.
func TestLabelsStandBesideTheirColumns(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables, err := catalog.ApplyFields(catalog.Mapping{"subscriptions": {"culture": {Field: "Culture", Type: "string"}}})
	if err != nil {
		t.Fatal(err)
	}
	subs, _ := catalog.Find(tables, "subscriptions")
	rel := `SELECT 's1' AS snapshot_id, 'a' AS id, 'c' AS customer_id, 'p' AS product_plan_id, 'EUR' AS currency_code,
		'Paused' AS state, now() AS start_date, 'gone' AS dropped, '{}'::JSON AS _raw
		UNION ALL SELECT 's1', 'b', 'c', 'p', 'EUR', 'Unheard', now(), 'gone', '{}'::JSON`
	rows, err := db.Query("SELECT * FROM (" + labelled(subs, rel) + ") ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	want := "snapshot_id id customer_id product_plan_id currency_code state state_label start_date dropped _raw"
	if got := strings.Join(cols, " "); got != want {
		t.Errorf("columns: %s; want %s", got, want)
	}
	var labels []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		label, _ := vals[6].(string)
		labels = append(labels, label)
	}
	if strings.Join(labels, ",") != "paused," {
		t.Errorf("labels: %q; want paused, and none for a code not listed", labels)
	}
	if units, _ := catalog.Find(tables, "units_of_measure"); labelled(units, rel) != rel {
		t.Errorf("a table without codes is relabelled: %s", labelled(units, rel))
	}
}
