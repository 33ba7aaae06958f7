package storeconfig

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
