package readmodel_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// historyRows are four complete snapshots of history, a day apart (s1 the
// base), as history_steps, history_snapshots, customers_history and
// changes hold them: customer c1 was at the base, had its Email changed
// at s2, was deleted at s3 and inserted again at s4; c2 was inserted at
// s2 and deleted at s3; invoice i1's Total changed at s3.
var historyRows = []string{
	`INSERT INTO history_steps (snapshot, table_name, "at", previous, inserted, updated, deleted) VALUES
		('s1', 'customers', TIMESTAMPTZ '2027-03-01 02:30:00+00', NULL, 1, 0, 0),
		('s1', 'invoices', TIMESTAMPTZ '2027-03-01 02:30:00+00', NULL, 1, 0, 0),
		('s2', 'customers', TIMESTAMPTZ '2027-03-02 02:30:00+00', 's1', 1, 1, 0),
		('s2', 'invoices', TIMESTAMPTZ '2027-03-02 02:30:00+00', 's1', 0, 0, 0),
		('s3', 'customers', TIMESTAMPTZ '2027-03-03 02:30:00+00', 's2', 0, 0, 2),
		('s3', 'invoices', TIMESTAMPTZ '2027-03-03 02:30:00+00', 's2', 0, 1, 0),
		('s4', 'customers', TIMESTAMPTZ '2027-03-04 02:30:00+00', 's3', 1, 0, 0),
		('s4', 'invoices', TIMESTAMPTZ '2027-03-04 02:30:00+00', 's3', 0, 0, 0)`,
	`CREATE VIEW history_snapshots AS SELECT snapshot AS snapshot_id, min("at") AS "at" FROM history_steps GROUP BY snapshot`,
	`CREATE TABLE customers_history AS SELECT id, CAST(_raw AS JSON) AS _raw, CAST(valid_from AS TIMESTAMPTZ) AS valid_from,
		CAST(valid_to AS TIMESTAMPTZ) AS valid_to, snapshot_from, snapshot_to FROM (VALUES
		('c1', '{"ID":"c1","Email":"a@x","Name":"Ann"}', '2027-03-01 02:30:00+00', '2027-03-02 02:30:00+00', 's1', 's2'),
		('c1', '{"ID":"c1","Email":"b@x","Name":"Ann"}', '2027-03-02 02:30:00+00', '2027-03-03 02:30:00+00', 's2', 's3'),
		('c1', '{"ID":"c1","Email":"b@x","Name":"Ann"}', '2027-03-04 02:30:00+00', NULL, 's4', NULL),
		('c2', '{"ID":"c2"}', '2027-03-02 02:30:00+00', '2027-03-03 02:30:00+00', 's2', 's3'))
		t(id, _raw, valid_from, valid_to, snapshot_from, snapshot_to)`,
	`CREATE TABLE changes AS SELECT "table", id, op, CAST(fields AS VARCHAR[]) AS fields, from_snapshot, to_snapshot,
		CAST("at" AS TIMESTAMPTZ) AS "at", CAST(old_values AS JSON) AS old_values, CAST(new_values AS JSON) AS new_values FROM (VALUES
		('customers', 'c1', 'update', ['Email'], 's1', 's2', '2027-03-02 02:30:00+00', '{"Email":"a@x"}', '{"Email":"b@x"}'),
		('customers', 'c2', 'insert', NULL, 's1', 's2', '2027-03-02 02:30:00+00', NULL, NULL),
		('customers', 'c2', 'delete', NULL, 's2', 's3', '2027-03-03 02:30:00+00', NULL, NULL),
		('customers', 'c1', 'delete', NULL, 's2', 's3', '2027-03-03 02:30:00+00', NULL, NULL),
		('invoices', 'i1', 'update', ['Total'], 's2', 's3', '2027-03-03 02:30:00+00', '{"Total":1}', '{"Total":2}'),
		('customers', 'c1', 'insert', NULL, 's3', 's4', '2027-03-04 02:30:00+00', NULL, NULL))
		t("table", id, op, fields, from_snapshot, to_snapshot, "at", old_values, new_values)`,
}

// timelineLine is a version as the test compares it: its snapshots, how
// it began, its fields and values, and whether it ended in a deletion.
func timelineLine(v readmodel.TimelineVersion) string {
	s := v.From + "-" + v.To + " " + v.Began
	if v.Began == readmodel.OpUpdate {
		s += " " + strings.Join(v.Fields, ",") + " " + v.OldValues + " -> " + v.NewValues
	}
	if v.Deleted {
		s += " deleted"
	}
	return s
}

func TestTimeline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, historyRows...)
	for _, c := range []struct {
		id   string
		want []string
	}{
		{"c1", []string{"s1-s2 base", `s2-s3 update Email {"Email":"a@x"} -> {"Email":"b@x"} deleted`, "s4- insert"}},
		{"c2", []string{"s2-s3 insert deleted"}},
		{"none", nil},
	} {
		got, err := readmodel.Timeline(ctx, db, "customers", c.id)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, v := range got {
			lines = append(lines, timelineLine(v))
		}
		if !slices.Equal(lines, c.want) {
			t.Errorf("Timeline of %s:\n got %q\nwant %q", c.id, lines, c.want)
		}
		if c.id == "c1" && (got[2].ValidTo != nil || got[0].ValidTo == nil || !got[0].ValidTo.Equal(got[1].ValidFrom)) {
			t.Errorf("c1's validity: %+v", got)
		}
	}
	if _, err := readmodel.Timeline(ctx, db, "customers_history; DROP TABLE changes; --", "c1"); err == nil {
		t.Error("Timeline took a table that is not the catalogue's")
	}
}

func TestStepOf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, historyRows...)
	s, ok, err := readmodel.StepOf(ctx, db, "")
	want := []readmodel.TableChanges{{Table: "customers", Inserted: 1}, {Table: "invoices"}}
	if err != nil || !ok || s.Snapshot != "s4" || s.Previous != "s3" || !slices.Equal(s.Tables, want) {
		t.Errorf(`StepOf(""): %+v, %v, %v; want s4's, from s3`, s, ok, err)
	}
	s, ok, err = readmodel.StepOf(ctx, db, "s3")
	want = []readmodel.TableChanges{{Table: "customers", Deleted: 2}, {Table: "invoices", Updated: 1}}
	if err != nil || !ok || s.Snapshot != "s3" || !slices.Equal(s.Tables, want) {
		t.Errorf("StepOf(s3): %+v, %v, %v", s, ok, err)
	}
	if s, ok, err := readmodel.StepOf(ctx, db, "s1"); err != nil || !ok || s.Previous != "" || !s.Tables[0].Base {
		t.Errorf("StepOf(s1), the base: %+v, %v, %v", s, ok, err)
	}
	if _, ok, err := readmodel.StepOf(ctx, db, "s9"); err != nil || ok {
		t.Errorf("StepOf(s9), no step: %v, %v", ok, err)
	}
}

func TestChangesInto(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, historyRows...)
	key := func(cs []readmodel.Change) (out []string) {
		for _, c := range cs {
			out = append(out, c.Table+" "+c.Op+" "+c.ID+" "+strings.Join(c.Fields, ","))
		}
		return out
	}
	for _, c := range []struct {
		snap, table, op string
		page            readmodel.Page
		want            []string
		total           int
	}{
		{"s3", "", "", readmodel.Page{}, []string{"customers delete c1 ", "customers delete c2 ", "invoices update i1 Total"}, 3},
		{"s3", "", "", readmodel.Page{Limit: 2}, []string{"customers delete c1 ", "customers delete c2 "}, 3},
		{"s3", "", "", readmodel.Page{Limit: 2, Offset: 2}, []string{"invoices update i1 Total"}, 3},
		{"s3", "invoices", "update", readmodel.Page{}, []string{"invoices update i1 Total"}, 1},
		{"s2", "customers", "", readmodel.Page{}, []string{"customers insert c2 ", "customers update c1 Email"}, 2},
		{"s3", "customers", "insert", readmodel.Page{}, nil, 0},
	} {
		got, total, err := readmodel.ChangesInto(ctx, db, c.snap, c.table, c.op, c.page)
		if err != nil || total != c.total || !slices.Equal(key(got), c.want) {
			t.Errorf("ChangesInto(%s, %q, %q, %+v): %q of %d, %v; want %q of %d", c.snap, c.table, c.op, c.page, key(got), total, err, c.want, c.total)
		}
	}
	if got, _, _ := readmodel.ChangesInto(ctx, db, "s2", "customers", "update", readmodel.Page{}); len(got) != 1 ||
		got[0].OldValues != `{"Email":"a@x"}` || got[0].NewValues != `{"Email":"b@x"}` || got[0].From != "s1" {
		t.Errorf("the update's values: %+v", got)
	}
	for _, bad := range [][2]string{{"nope", ""}, {"customers", "upsert"}} {
		if _, _, err := readmodel.ChangesInto(ctx, db, "s3", bad[0], bad[1], readmodel.Page{}); err == nil {
			t.Errorf("ChangesInto took table %q, op %q", bad[0], bad[1])
		}
	}
}
