package jsontext

// Valid tells whether s is one JSON value (RFC 8259), spaces around it
// allowed, however deep its arrays and objects nest: it reads s once, in
// a loop, keeping the open containers on a stack of a byte each, where
// a recursive validator (gjson's) grew the goroutine's stack by a frame a
// level — 4 s and hundreds of MB for a value a million levels deep.
func Valid(s string) bool {
	var open []byte // '{' or '[' per container not yet closed
	i := skipSpace(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return false
		}
		switch s[i] {
		case '{', '[':
			c := s[i]
			i = skipSpace(s, i+1)
			if i < len(s) && s[i] == c+2 { // {} or []: '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			open = append(open, c)
			if c == '{' {
				if i = member(s, i); i < 0 {
					return false
				}
			}
			continue
		default:
			if i = scalarEnd(s, i); i < 0 {
				return false
			}
		}
		// A value ended at i: close what it ends, then a comma starts the next.
		for {
			i = skipSpace(s, i)
			if len(open) == 0 {
				return i == len(s)
			}
			if i >= len(s) {
				return false
			}
			top := open[len(open)-1]
			if s[i] == top+2 {
				open, i = open[:len(open)-1], i+1
				continue
			}
			if s[i] != ',' {
				return false
			}
			i = skipSpace(s, i+1)
			if top == '{' {
				if i = member(s, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// member reads an object member's name and colon at s[i:], and returns
// where its value starts (-1 when they are not there).
func member(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return -1
	}
	if i = stringEnd(s, i); i < 0 {
		return -1
	}
	if i = skipSpace(s, i); i >= len(s) || s[i] != ':' {
		return -1
	}
	return skipSpace(s, i+1)
}

// scalarEnd is where the string, number or literal at s[i] ends, or -1.
func scalarEnd(s string, i int) int {
	switch c := s[i]; {
	case c == '"':
		return stringEnd(s, i)
	case c == 't':
		return literalEnd(s, i, "true")
	case c == 'f':
		return literalEnd(s, i, "false")
	case c == 'n':
		return literalEnd(s, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return numberEnd(s, i)
	}
	return -1
}

func literalEnd(s string, i int, lit string) int {
	if len(s)-i < len(lit) || s[i:i+len(lit)] != lit {
		return -1
	}
	return i + len(lit)
}

// stringEnd is where the JSON string at s[i] ('"') ends, past its closing
// quote: control characters refused, escapes checked; -1 when it is not
// one.
func stringEnd(s string, i int) int {
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i++; i >= len(s) {
				return -1
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s)-i < 5 || !hex4(s[i+1:i+5]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func hex4(h string) bool {
	for j := range 4 {
		c := h[j]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// numberEnd is where the JSON number at s[i] ends, or -1.
func numberEnd(s string, i int) int {
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}
