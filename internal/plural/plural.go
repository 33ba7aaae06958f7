// Package plural writes counts as people read them: "1 finding",
// "2 findings", "0 findings".
package plural

import "strconv"

// Integer is any count.
type Integer interface {
	~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64
}

// Of is n and its noun, whose plural adds an s: Of(1, "request") is
// "1 request", Of(2, "request") "2 requests".
func Of[N Integer](n N, noun string) string {
	return Irregular(n, noun, noun+"s")
}

// Irregular is n and one or many, as n asks: Irregular(2, "entry",
// "entries") is "2 entries".
func Irregular[N Integer](n N, one, many string) string {
	word := many
	if n == 1 {
		word = one
	}
	return strconv.FormatInt(int64(n), 10) + " " + word
}

// Word is one or many, as n asks, without the number.
func Word[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Any is Of for a template, whose counts come as int or int64.
func Any(n any, noun string) string {
	switch v := n.(type) {
	case int:
		return Of(v, noun)
	case int64:
		return Of(v, noun)
	}
	return ""
}
