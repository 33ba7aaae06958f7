package ingest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// joinedDecimal is decimal as it was written first, by joining the digits
// into text for strconv: the reference the allocation-free one must match.
func joinedDecimal(s string, scale int) (int64, error) {
	if !isNumberText(s) {
		return 0, fmt.Errorf("want a decimal number, got %s", clip(s))
	}
	neg := strings.HasPrefix(s, "-")
	mant, exp := strings.TrimPrefix(s, "-"), 0
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(mant[i+1:], "+"))
		if err != nil || e > 40 || e < -40 {
			return 0, fmt.Errorf("%s is out of range", s)
		}
		mant, exp = mant[:i], e
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits, point := strings.TrimRight(whole+frac, "0"), len(whole)+exp
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	digits = trimmed
	switch {
	case digits == "":
		return 0, nil
	case len(digits)-point > scale:
		return 0, fmt.Errorf("%s has more than %d decimals", s, scale)
	case point+scale > 18:
		return 0, fmt.Errorf("%s is out of range", s)
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", point+scale-len(digits)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is out of range", s)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// randomNumber is number text, mostly JSON's, with zeros where they test
// the trimming, and exponents near the limits.
func randomNumber(r *rand.Rand) string {
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			if r.IntN(3) == 0 {
				b.WriteByte('0')
			} else {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		return b.String()
	}
	s := []string{"", "-"}[r.IntN(2)]
	if w := digits(1 + r.IntN(20)); r.IntN(4) == 0 {
		s += "0"
	} else {
		s += w
	}
	if r.IntN(2) == 0 {
		s += "." + digits(r.IntN(12))
	}
	if r.IntN(3) == 0 {
		s += []string{"e", "E"}[r.IntN(2)] + []string{"", "+", "-"}[r.IntN(3)] + strconv.Itoa(r.IntN(45))
	}
	return s
}

// decimal gives what the joined reference gives, value or message, on
// numbers of every shape at every scale the columns use.
func TestDecimalMatchesTheJoinedReference(t *testing.T) {
	r := rand.New(rand.NewPCG(49, 2))
	fixed := []string{"0", "-0", "0.0", "12.5", "1.25e1", "100e-2", "0.00001", "123456789012345678", "9999999999999999.99",
		"1e40", "1e41", "1e-41", "0e99", "007", "1.", ".5", "abc", "", "-", "1e", "12.50000000000000000000"}
	for i := range 20_000 {
		s := randomNumber(r)
		if i < len(fixed) {
			s = fixed[i]
		}
		for _, scale := range []int{0, 2, 4} {
			got, gotErr := decimal(s, scale)
			want, wantErr := joinedDecimal(s, scale)
			if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("decimal(%q, %d) = %d, %v; want %d, %v", s, scale, got, gotErr, want, wantErr)
			}
		}
	}
}

func BenchmarkDecimal(b *testing.B) {
	nums := []string{"1250.75", "-0.5", "1.25e3", "42", "19.99", "0.0001", "120000"}
	for b.Loop() {
		for _, s := range nums {
			if _, err := decimal(s, 4); err != nil {
				b.Fatal(err)
			}
		}
	}
}
