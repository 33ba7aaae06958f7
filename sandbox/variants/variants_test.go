package variants

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// Every coercible form reads back as the value it replaces.
func TestCoercibleFormsKeepTheValue(t *testing.T) {
	at := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	for _, form := range []float64{0, 0.2, 0.4, 0.6, 0.8, 0.99} {
		s, _ := coercible(gjson.Parse(`"`+at.Format(time.RFC3339Nano)+`"`), form)
		var text string
		json.Unmarshal([]byte(s), &text)
		got, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			got, err = time.Parse("2006-01-02T15:04:05.999999999", text)
		}
		if err != nil {
			got, err = time.Parse("2006-01-02", text)
		}
		if err != nil || !got.Equal(at) {
			t.Errorf("form %v of %s: %s (%v)", form, at, s, err)
		}
	}
	for raw, want := range map[string]string{`12.50`: `"12.50"`, `"1000123"`: `1000123`} {
		if got, ok := coercible(gjson.Parse(raw), 0); !ok || got != want {
			t.Errorf("coercible(%s) = %s, %v; want %s", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`"0123"`, `"Ann"`, `null`, `{"a":1}`} {
		if got, ok := coercible(gjson.Parse(raw), 0); ok {
			t.Errorf("coercible(%s) = %s; want none", raw, got)
		}
	}
}
