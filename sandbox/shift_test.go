package sandbox

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// sameBut reports the first difference between a and b other than every
// date of b being a's moved by by, walking every field of every record.
func sameBut(a, b reflect.Value, by time.Duration, path string) error {
	if a.Type() == reflect.TypeFor[time.Time]() {
		at, bt := a.Interface().(time.Time), b.Interface().(time.Time)
		if !at.Add(by).Equal(bt) {
			return fmt.Errorf("%s: %v, want %v moved by %v", path, bt, at, by)
		}
		return nil
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Errorf("%s: nil in one only", path)
			}
			return nil
		}
		return sameBut(a.Elem(), b.Elem(), by, path)
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Errorf("%s: %d against %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if err := sameBut(a.Index(i), b.Index(i), by, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		for i := range a.NumField() {
			if err := sameBut(a.Field(i), b.Field(i), by, path+"."+a.Type().Field(i).Name); err != nil {
				return err
			}
		}
		return nil
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Errorf("%s: %v against %v", path, a.Interface(), b.Interface())
	}
	return nil
}

// The same seed and size give the same records, IDs, counts and amounts at
// any Now, on either side of an hour's and a day's boundary: Now moves
// every date by exactly the difference, and the answer keys are equal but
// for their Now.
func TestTheSameSeedGivesTheSameDataAtAnyNow(t *testing.T) {
	base := time.Date(2026, 11, 25, 17, 59, 59, 0, time.UTC)
	o := Options{Seed: 1, Customers: 250, Planted: 2}
	o.Now = base
	want := Generate(o)
	key := New(Config{Data: o}).AnswerKey()
	for _, now := range []time.Time{base.Add(time.Second), base.Add(24*time.Hour + 3*time.Second), base.Add(-18 * time.Hour), base.AddDate(0, 3, 7)} {
		o.Now = now
		got := Generate(o)
		if err := sameBut(reflect.ValueOf(want).Elem(), reflect.ValueOf(got).Elem(), now.Sub(base), "Dataset"); err != nil {
			t.Errorf("at %s: %v", now.Format(time.RFC3339), err)
		}
		k := New(Config{Data: o}).AnswerKey()
		if !k.Now.Equal(now) {
			t.Errorf("the answer key at %s says now is %s", now, k.Now)
		}
		k.Now = key.Now
		if !reflect.DeepEqual(k, key) {
			t.Errorf("at %s the answer key differs", now.Format(time.RFC3339))
		}
	}
}
