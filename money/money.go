// Package money is an exact money figure: whole cents in an int64, written
// with two decimals. Amounts are never floats, and two currencies are never
// added: callers total per currency.
package money

import (
	"fmt"
	"strconv"
	"strings"
)

// Amount is a signed amount in cents.
type Amount int64

// String writes a with exactly two decimals: -3.05, 12.50, 0.00.
func (a Amount) String() string {
	sign, v := "", int64(a)
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// Abs is |a|.
func (a Amount) Abs() Amount {
	if a < 0 {
		return -a
	}
	return a
}

// Parse reads a decimal with at most two decimals ("12.5", "-3.05", "7",
// "12.500" with zeros past the second decimal).
func Parse(s string) (Amount, error) {
	t := strings.TrimSpace(s)
	neg := strings.HasPrefix(t, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(t, "-"), ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > 2 || whole == "" || strings.HasPrefix(whole, "+") {
		return 0, fmt.Errorf("amount %q: want a decimal with at most two decimals", s)
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || w > (1<<62)/100 {
		return 0, fmt.Errorf("amount %q: not a decimal", s)
	}
	v := Amount(w*100 + f)
	if neg {
		v = -v
	}
	return v, nil
}

// Grouped writes a with two decimals and thousands separated by commas,
// for people: -110,755.75.
func (a Amount) Grouped() string {
	s := a.Abs().String()
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if a < 0 {
		b.WriteByte('-')
	}
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String() + "." + frac
}
