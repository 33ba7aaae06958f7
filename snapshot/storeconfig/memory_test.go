package storeconfig

import "testing"

// MemoryBytes reads sizes the way DuckDB does: KB, MB powers of 1000,
// KiB, MiB powers of 1024.
func TestMemoryBytes(t *testing.T) {
	for in, want := range map[string]int64{"64MB": 64e6, "1.5GiB": 3 << 29, "512 kib": 512 << 10, "7B": 7, "2TB": 2e12} {
		if got, ok := MemoryBytes(in); !ok || got != want {
			t.Errorf("MemoryBytes(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "lots", "-1MB", "1 PB", "MB"} {
		if got, ok := MemoryBytes(in); ok {
			t.Errorf("MemoryBytes(%q) = %d, want not ok", in, got)
		}
	}
}
