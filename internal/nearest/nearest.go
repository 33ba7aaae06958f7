// Package nearest finds the word a person most likely meant when they
// mistyped one: a command, a flag, a configuration key.
package nearest

import "strings"

// Of is the choice nearest to word by Distance, ignoring case, and true;
// or "" and false when none is near enough to be a typo: at most a third
// of word's letters apart (at least one, at most three). The first of
// equally near choices wins.
func Of(word string, choices []string) (string, bool) {
	limit := min(max(len([]rune(word))/3, 1), 3)
	best, bestD := "", limit+1
	for _, c := range choices {
		if d := Distance(strings.ToLower(word), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// Distance is the optimal string alignment distance between a and b, in
// runes: the insertions, deletions, substitutions and swaps of two
// neighbours that make one the other ("exprot" is 1 from "export").
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
