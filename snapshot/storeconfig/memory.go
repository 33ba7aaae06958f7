package storeconfig

import (
	"regexp"
	"strconv"
	"strings"
)

// memorySize is a size DuckDB's memory_limit takes: 64MB, 1.5GiB.
var memorySize = regexp.MustCompile(`(?i)^([0-9]+(?:\.[0-9]+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$`)

// memoryUnits are the units of memorySize as DuckDB reads them: KB, MB, GB
// and TB are powers of 1000, KiB, MiB, GiB and TiB powers of 1024.
var memoryUnits = map[string]float64{"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}

// MemoryBytes is the number of bytes of a DuckDB memory size such as
// 64MB; ok is false when s is not one.
func MemoryBytes(s string) (n int64, ok bool) {
	m := memorySize.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	return int64(f * memoryUnits[strings.ToLower(m[2])]), true
}
