package snapshot

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/billsnap/billsnap/extract"
)

// row builds a table row in Parquet order from a record's fields: id, the
// parent's ID (child tables), the typed columns, and raw.
func (t Table) row(id, parentID string, fields []extract.Field, raw string) ([]any, error) {
	r := make([]any, 0, len(t.Columns)+3)
	r = append(r, id)
	if t.ParentColumn != "" {
		r = append(r, parentID)
	}
	for _, c := range t.Columns {
		v, err := convert(c.Kind, extract.FieldOf(fields, c.Field))
		if err != nil {
			return nil, fmt.Errorf("record %s, field %s: %w", id, c.Field, err)
		}
		r = append(r, v)
	}
	return append(r, raw), nil
}

// convert turns a JSON value (valid JSON text) into the Parquet value of
// kind k; absent and null give nil.
func convert(k Kind, s string) (any, error) {
	if s == "" || s == "null" {
		return nil, nil
	}
	switch k {
	case String:
		return jsonString(s)
	case Timestamp:
		return timestampMicros(s)
	case Money:
		return decimal(s, 2)
	case Quantity:
		return decimal(s, 4)
	case Int32:
		n, err := whole(s, math.MinInt32, math.MaxInt32)
		return int32(n), err
	case Int64:
		return whole(s, math.MinInt64, math.MaxInt64)
	case Bool:
		if s != "true" && s != "false" {
			return nil, fmt.Errorf("want true or false, got %s", clip(s))
		}
		return s == "true", nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !isNumber(s) {
		return nil, fmt.Errorf("want a number, got %s", clip(s))
	}
	return f, nil
}

// jsonString reads a JSON string; without escapes it is a view of raw.
func jsonString(raw string) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", fmt.Errorf("want a string, got %s", clip(raw))
	}
	if !strings.ContainsRune(raw, '\\') {
		return raw[1 : len(raw)-1], nil
	}
	var v string
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return "", fmt.Errorf("want a string, got %s", clip(raw))
	}
	return v, nil
}

// timeLayouts are the ISO 8601 forms accepted; without a zone, UTC.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02"}

// timestampMicros reads an ISO 8601 date-time as microseconds since 1970 UTC.
func timestampMicros(raw string) (int64, error) {
	s, err := jsonString(raw)
	if err != nil {
		return 0, fmt.Errorf("want an ISO 8601 date-time string, got %s", clip(raw))
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("%q is not an ISO 8601 date-time", s)
}

// decimal reads a JSON number with at most scale decimals as an integer
// scaled by 10^scale, exactly (no float on the way).
func decimal(s string, scale int) (int64, error) {
	if !isNumber(s) || strings.ContainsAny(s, "eE") {
		return 0, fmt.Errorf("want a decimal number, got %s", clip(s))
	}
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if frac = strings.TrimRight(frac, "0"); len(frac) > scale {
		return 0, fmt.Errorf("%s has more than %d decimals", s, scale)
	}
	digits := whole + frac + strings.Repeat("0", scale-len(frac))
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || len(whole) > 18-scale {
		return 0, fmt.Errorf("%s is out of range", s)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// whole reads a JSON number that is a whole number in [lo, hi].
func whole(s string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want a whole number, got %s", clip(s))
	}
	return n, nil
}

// isNumber reports whether s, valid JSON text, is a number.
func isNumber(s string) bool {
	return s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
