package storeconfig

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Size is a number of bytes, written as 1048576, 1MiB, 512KiB, 16MB or 1GiB.
type Size int64

var sizeUnits = []struct {
	suffix string
	mult   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"B", 1}}

// ParseSize reads a Size.
func ParseSize(s string) (Size, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 1MiB or 1048576")
	}
	return Size(n * mult), nil
}

// UnmarshalYAML reads a Size from a number or a string.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*s = v
	return nil
}

// String writes s with the largest binary unit that divides it.
func (s Size) String() string {
	for _, u := range []struct {
		suffix string
		mult   Size
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s >= u.mult && s%u.mult == 0 {
			return fmt.Sprintf("%d%s", s/u.mult, u.suffix)
		}
	}
	return strconv.FormatInt(int64(s), 10)
}
