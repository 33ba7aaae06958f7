//go:build !(linux && cgo)

package heaptrim

// Release does nothing where DuckDB does not trim the heap either.
func Release() bool { return false }

// Skipped is zero where no trim is skipped.
func Skipped() int64 { return 0 }

// Arenas is the cap on malloc arenas where heaptrim sets one: none here.
const Arenas = 0

// Heaps is unknown here: 0.
func Heaps() int { return 0 }
