package readmodel_test

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/billsnap/billsnap/snapshot/readmodel"
)

// recordRows are a table of records over two snapshots, as the read
// model's are: snapshot_id, id, typed columns and _raw.
const recordRows = `CREATE TABLE invoices (snapshot_id VARCHAR, id VARCHAR, customer_id VARCHAR, _raw JSON);
	INSERT INTO invoices VALUES
	('s1', 'I-1', 'C-1', '{"Id": "I-1", "Total": 5}'), ('s1', 'I-2', 'C-1', '{"Id": "I-2"}'), ('s1', 'I-3', 'C-2', NULL),
	('s2', 'I-1', 'C-1', '{"Id": "I-1", "Total": 6}')`

func TestRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, recordRows)
	rec, ok, err := readmodel.RecordOf(ctx, db, "invoices", "s2", "I-1")
	if err != nil || !ok || !slices.Equal(rec.Columns, []string{"id", "customer_id", "_raw"}) || rec.Values[2] != `{"Id": "I-1", "Total": 6}` {
		t.Errorf("RecordOf(s2, I-1): %+v, %v, %v; want its columns, _raw as text", rec, ok, err)
	}
	if _, ok, err := readmodel.RecordOf(ctx, db, "invoices", "s2", "I-2"); ok || err != nil {
		t.Errorf("RecordOf(s2, I-2): %v, %v; want not found", ok, err)
	}
	if ids, err := readmodel.IDsWhere(ctx, db, "invoices", "customer_id", "s1", "C-1"); err != nil || !slices.Equal(ids, []string{"I-1", "I-2"}) {
		t.Errorf("IDsWhere: %v, %v", ids, err)
	}
	if ids, err := readmodel.SnapshotsHolding(ctx, db, "invoices", "I-1"); err != nil || !slices.Equal(ids, []string{"s1", "s2"}) {
		t.Errorf("SnapshotsHolding: %v, %v", ids, err)
	}
	if raw, err := readmodel.RawOf(ctx, db, "invoices", "s1", "I-2"); err != nil || raw.String != `{"Id": "I-2"}` {
		t.Errorf("RawOf(s1, I-2): %v, %v", raw, err)
	}
	if raw, err := readmodel.RawOf(ctx, db, "invoices", "s1", "I-3"); err != nil || raw.Valid {
		t.Errorf("RawOf(s1, I-3): %v, %v; want NULL", raw, err)
	}
	if _, err := readmodel.RawOf(ctx, db, "invoices", "s2", "I-3"); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("RawOf(s2, I-3): %v; want sql.ErrNoRows", err)
	}
	for name, want := range map[string]bool{"invoices": true, "findings": true, "charges": false} {
		if got, err := readmodel.Has(ctx, db, name); err != nil || got != want {
			t.Errorf("Has(%s): %v, %v; want %v", name, got, err, want)
		}
	}
}

func TestChargesByReference(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := state(t, `CREATE TABLE subscription_charges (snapshot_id VARCHAR, id VARCHAR, reference_id VARCHAR, subscription_id VARCHAR);
		INSERT INTO subscription_charges VALUES ('s1', 'C-1', 'Ref-A', 'Sub-1'), ('s1', 'C-2', 'REF-A', 'Sub-1'),
		  ('s1', 'C-3', 'ref-b', NULL), ('s1', 'C-4', NULL, 'Sub-2'), ('s2', 'C-9', 'ref-c', 'Sub-3')`)
	if ids, err := readmodel.ChargesOfReference(ctx, db, "s1", "ref-a"); err != nil || !slices.Equal(slices.Sorted(slices.Values(ids)), []string{"C-1", "C-2"}) {
		t.Errorf("ChargesOfReference(ref-a): %v, %v; want both, case folded", ids, err)
	}
	subs, err := readmodel.SubscriptionsOfReferences(ctx, db, "s1")
	if want := map[string]string{"ref-a": "sub-1", "ref-b": ""}; err != nil || !maps.Equal(subs, want) {
		t.Errorf("SubscriptionsOfReferences: %v, %v; want %v", subs, err, want)
	}
}
