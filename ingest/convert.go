package ingest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/billsnap/billsnap/catalog"
)

// jsonType is a JSON value's type, as its first byte tells it.
type jsonType uint8

const (
	typeAbsent jsonType = iota // the field is not in the record
	typeNull
	typeString
	typeNumber
	typeBoolean
	typeObject
	typeArray
	numJSONTypes
)

var jsonTypeNames = [numJSONTypes]string{"absent", "null", "string", "number", "boolean", "object", "array"}

func (t jsonType) String() string { return jsonTypeNames[t] }

// typeOf is the type of raw, valid JSON text ("" when absent).
func typeOf(raw string) jsonType {
	if raw == "" {
		return typeAbsent
	}
	switch raw[0] {
	case 'n':
		return typeNull
	case '"':
		return typeString
	case 't', 'f':
		return typeBoolean
	case '{':
		return typeObject
	case '[':
		return typeArray
	}
	return typeNumber
}

// outcome is how a value became its column's value.
type outcome uint8

const (
	typed   outcome = iota // in the kind's own form, or null or absent (nil)
	coerced                // converted from another form without loss
	untyped                // no lossless conversion: nil in the column, kept in _raw
)

// convert turns raw, valid JSON text ("" when absent), into the Parquet
// value of column c; absent and null give nil. A value in the kind's own
// form is typed. Another form that converts without loss is coerced: a
// date-time with a UTC offset other than Z or without one, a date alone;
// and for an assumed column also a number or boolean into a string column,
// a string holding a decimal into a money, quantity or number column when
// the column holds it exactly, "true"/"false" (any case) and 0/1 into a
// boolean column. Anything else is untyped (nil) in an assumed column, and
// an error naming what was wanted in a contract column.
func convert(c catalog.Column, raw string) (any, outcome, error) {
	if raw == "" || raw == "null" {
		return nil, typed, nil
	}
	v, exact, err := parse(c.Kind, raw)
	switch {
	case err == nil && exact:
		return v, typed, nil
	case err == nil:
		return v, coerced, nil
	case c.Contract:
		return nil, untyped, err
	}
	if v, ok := coerce(c.Kind, raw); ok {
		return v, coerced, nil
	}
	return nil, untyped, nil
}

// parse reads raw in the JSON type of kind k. exact is false for a value
// in another form than the kind's own that parse still reads without loss
// (a date-time not in UTC, see timestampMicros).
func parse(k catalog.Kind, raw string) (v any, exact bool, err error) {
	switch k {
	case catalog.String:
		v, err = jsonString(raw)
		return v, true, err
	case catalog.Timestamp:
		return timestampMicros(raw)
	case catalog.Money:
		v, err = decimal(raw, 2)
	case catalog.Quantity:
		v, err = decimal(raw, 4)
	case catalog.Int32:
		var n int64
		n, err = whole(raw, math.MinInt32, math.MaxInt32)
		v = int32(n)
	case catalog.Int64:
		v, err = whole(raw, math.MinInt64, math.MaxInt64)
	case catalog.Bool:
		if raw != "true" && raw != "false" {
			return nil, false, fmt.Errorf("want true or false, got %s", clip(raw))
		}
		v = raw == "true"
	case catalog.Float:
		v, err = float(raw)
	}
	return v, true, err
}

// coerce reads raw, not in k's own JSON type, when that loses nothing.
func coerce(k catalog.Kind, raw string) (any, bool) {
	t := typeOf(raw)
	var s string
	if t == typeString {
		var err error
		if s, err = jsonString(raw); err != nil {
			return nil, false
		}
	}
	switch {
	case k == catalog.String && (t == typeNumber || t == typeBoolean):
		return raw, true
	case k == catalog.Bool && t == typeString && (strings.EqualFold(s, "true") || strings.EqualFold(s, "false")):
		return strings.EqualFold(s, "true"), true
	case k == catalog.Bool && (raw == "0" || raw == "1"):
		return raw == "1", true
	case t == typeNumber && (k == catalog.Int32 || k == catalog.Int64):
		// A whole value written with decimals or an exponent: 7.0, 7e0.
		return fromString(k, raw)
	case t == typeString && k != catalog.String && k != catalog.Timestamp && k != catalog.Bool && isNumberText(s):
		return fromString(k, s)
	}
	return nil, false
}

// fromString reads s, JSON number text (as a string held it, or a whole
// value written with decimals or an exponent), as kind k: a money,
// quantity or number column as parse reads a number, a whole-number
// column when the value is whole and in range.
func fromString(k catalog.Kind, s string) (any, bool) {
	if k != catalog.Int32 && k != catalog.Int64 {
		v, _, err := parse(k, s)
		return v, err == nil
	}
	n, err := decimal(s, 0)
	switch {
	case err != nil:
		return nil, false
	case k == catalog.Int32 && (n < math.MinInt32 || n > math.MaxInt32):
		return nil, false
	case k == catalog.Int32:
		return int32(n), true
	}
	return n, true
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

// timeLayouts are the ISO 8601 forms read, after RFC 3339 in UTC ("Z"):
// with another offset, without an offset (taken as UTC), a date alone
// (midnight UTC).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"}

// timestampMicros reads an ISO 8601 date-time as microseconds since 1970
// UTC; exact is false for any form other than a UTC date-time ending in Z.
func timestampMicros(raw string) (micros int64, exact bool, err error) {
	s, err := jsonString(raw)
	if err != nil {
		return 0, false, fmt.Errorf("want an ISO 8601 date-time string, got %s", clip(raw))
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			utc := layout == time.RFC3339Nano && strings.HasSuffix(s, "Z")
			return t.UTC().UnixMicro(), utc, nil
		}
	}
	return 0, false, fmt.Errorf("%s is not an ISO 8601 date-time", clip(strconv.Quote(s)))
}

// decimal reads a JSON number that has at most scale decimals once its
// exponent is applied, as an integer scaled by 10^scale, exactly (no float
// on the way): 12.5 → 1250 at scale 2, 1.25e1 too.
func decimal(s string, scale int) (int64, error) {
	if !isNumberText(s) {
		return 0, fmt.Errorf("want a decimal number, got %s", clip(s))
	}
	neg := s[0] == '-'
	mant, exp := s, 0
	if neg {
		mant = s[1:]
	}
	if i := exponentAt(mant); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(mant[i+1:], "+"))
		if err != nil || e > 40 || e < -40 {
			return 0, fmt.Errorf("%s is out of range", clip(s))
		}
		mant, exp = mant[:i], e
	}
	whole, frac, _ := strings.Cut(mant, ".")
	d := digitRun{whole, frac}
	// The value is 0.d[first:end] × 10^point: the digits of whole and
	// frac without their leading and trailing zeros.
	first, end := 0, d.len()
	for end > 0 && d.at(end-1) == '0' {
		end--
	}
	for first < end && d.at(first) == '0' {
		first++
	}
	n, point := end-first, len(whole)+exp-first
	switch {
	case n == 0:
		return 0, nil
	case n-point > scale:
		return 0, fmt.Errorf("%s has more than %d decimals", clip(s), scale)
	case point+scale > 18:
		return 0, fmt.Errorf("%s is out of range", clip(s))
	}
	var v int64 // at most 18 digits: no overflow
	for i := first; i < end; i++ {
		v = v*10 + int64(d.at(i)-'0')
	}
	for range point + scale - n {
		v *= 10
	}
	if neg {
		v = -v
	}
	return v, nil
}

// exponentAt is the index of the e or E in number text, or -1.
func exponentAt(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			return i
		}
	}
	return -1
}

// digitRun is the digits of a number's whole part then its fraction, read
// as one run without joining them.
type digitRun struct{ whole, frac string }

func (d digitRun) len() int { return len(d.whole) + len(d.frac) }

func (d digitRun) at(i int) byte {
	if i < len(d.whole) {
		return d.whole[i]
	}
	return d.frac[i-len(d.whole)]
}

// whole reads a JSON number written as a whole number in [lo, hi].
func whole(s string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want a whole number, got %s", clip(s))
	}
	return n, nil
}

// float reads a JSON number as a float64.
func float(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !isNumberText(s) {
		return 0, fmt.Errorf("want a number, got %s", clip(s))
	}
	return f, nil
}

// isNumberText reports whether s is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isNumberText(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digitsFrom(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		if j := digitsFrom(s, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digitsFrom(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// digitsFrom is the index after the run of digits at s[i:].
func digitsFrom(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// clip is s, or its first 40 bytes (whole characters) and its length
// when it is longer: an error never echoes the service's value whole (a
// million-digit amount made a 1 MB error line, in the journal, status and
// the webhook's body too).
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	n := 40
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:n], len(s))
}
