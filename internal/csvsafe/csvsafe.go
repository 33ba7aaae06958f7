// Package csvsafe neutralises CSV cells a spreadsheet would run as a
// formula (OWASP CSV injection), and the control characters a terminal
// showing the file would act on: every CSV report billsnap writes passes
// its cells through Text or Number. (billsnap query --format csv is the
// analyst's raw data, its cells as stored: docs/store.md says why.)
package csvsafe

import "github.com/billsnap/billsnap/internal/termsafe"

// Text returns s as a text cell no spreadsheet evaluates and no terminal
// acts on (`cat findings.csv`): its control characters escaped as
// termsafe.Lines does (ESC, NUL, an OSC 8 link, C1 and bidirectional
// controls; line feeds kept), and, when it then begins with '=', '+', '-',
// '@', TAB or CR, a leading "'". Excel, LibreOffice and Google Sheets show
// "'" as the text prefix; the raw value is kept elsewhere (Parquet,
// DuckDB).
func Text(s string) string {
	if s == "" {
		return s
	}
	s = termsafe.Lines(s)
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// Number returns s unchanged when it is a plain decimal number (an
// optional sign, digits, optionally a point and digits: "-12.50", "+3"),
// which a spreadsheet reads as a number and never as a formula; anything
// else is neutralised as Text. It is for the cells of numeric columns.
func Number(s string) string {
	if IsDecimal(s) {
		return s
	}
	return Text(s)
}

// Live reports whether a spreadsheet could read cell as a formula: it
// begins with '=', '@', TAB or CR, or with '+' or '-' and is not a decimal
// number. No cell that Text or Number returns is live.
func Live(cell string) bool {
	if cell == "" {
		return false
	}
	switch cell[0] {
	case '=', '@', '\t', '\r':
		return true
	case '+', '-':
		return !IsDecimal(cell)
	}
	return false
}

// IsDecimal reports whether s is [+-]digits[.digits].
func IsDecimal(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	intPart, frac, dot := cut(s)
	if !allDigits(intPart) {
		return false
	}
	return !dot || allDigits(frac)
}

// cut splits s at its first '.'.
func cut(s string) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
