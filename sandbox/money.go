package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// Money is an amount in cents. It is sent as a JSON number with exactly two
// decimals (12.50), never through a float.
type Money int64

// String formats m with two decimals: -3.05.
func (m Money) String() string {
	sign, v := "", int64(m)
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// MarshalJSON writes m as a number with two decimals.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalJSON reads a JSON number with at most two decimals.
func (m *Money) UnmarshalJSON(b []byte) error {
	v, err := ParseMoney(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ParseMoney reads a decimal with at most two decimals ("12.5", "-3.05", "7").
func ParseMoney(s string) (Money, error) {
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if len(frac) > 2 || whole == "" {
		return 0, fmt.Errorf("money %q: want at most two decimals", s)
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, err1 := strconv.ParseUint(whole, 10, 62)
	f, err2 := strconv.ParseUint(frac, 10, 8)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("money %q: not a decimal", s)
	}
	v := Money(w*100 + f)
	if neg {
		v = -v
	}
	return v, nil
}
