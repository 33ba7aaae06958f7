package sandbox

import "github.com/billsnap/billsnap/money"

// Money is an amount in cents. It is sent as a JSON number with exactly two
// decimals (12.50), never through a float.
type Money int64

// String formats m with two decimals: -3.05.
func (m Money) String() string { return money.Amount(m).String() }

// MarshalJSON writes m as a number with two decimals.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalJSON reads a JSON number with at most two decimals.
func (m *Money) UnmarshalJSON(b []byte) error {
	v, err := money.Parse(string(b))
	*m = Money(v)
	return err
}
