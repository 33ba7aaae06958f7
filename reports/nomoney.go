package reports

import (
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
)

// amountText is a as format writes it, or findings.NoMoney when the
// findings it adds up carry no money: their absolute amounts, gross,
// add up to 0.
func amountText(a, gross money.Amount, format func(money.Amount) string) string {
	if gross == 0 {
		return findings.NoMoney
	}
	return format(a)
}
