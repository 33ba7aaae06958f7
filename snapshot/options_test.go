package snapshot

import "testing"

func TestSize(t *testing.T) {
	for s, want := range map[string]Size{"1048576": 1 << 20, "1MiB": 1 << 20, "512KiB": 512 << 10, "16MB": 16e6, "2 GiB": 2 << 30} {
		if got, err := ParseSize(s); got != want || err != nil {
			t.Errorf("ParseSize(%q) = %d, %v", s, got, err)
		}
	}
	if Size(16<<20).String() != "16MiB" || Size(1000).String() != "1000" {
		t.Error("Size.String")
	}
}

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
