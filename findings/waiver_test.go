package findings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A waivers file is read with its dates; a waiver applies through its
// expiry day; a file missing a field, with a field unknown or a date not
// a date is refused, naming what is wrong.
func TestWaiversFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "w.yml")
	os.WriteFile(good, []byte("waivers:\n  - rule: price_mismatch\n    entity_id: abc\n    reason: agreed discount\n    owner: ann\n    expires: 2026-12-31\n"), 0o644)
	ws, err := LoadWaivers(good)
	if err != nil || len(ws) != 1 || ws[0].Expires.Format("2006-01-02") != "2026-12-31" {
		t.Fatalf("%+v %v", ws, err)
	}
	if !ws[0].ActiveOn(time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC)) || ws[0].ActiveOn(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("a waiver applies through its expiry day and not after")
	}
	for body, want := range map[string]string{
		"waivers:\n  - rule: x\n    entity_id: y\n    reason: r\n    owner: o\n    expires: soon\n": `expires "soon": want a date`,
		"waivers:\n  - rule: x\n    entity_id: y\n    reason: r\n    expires: 2026-01-01\n":         "waiver 1: rule, entity_id, reason, owner and expires are all required",
		"waivers:\n  - rule: x\n    entity: y\n":                                                    `field entity not found`,
	} {
		f := filepath.Join(dir, "bad.yml")
		os.WriteFile(f, []byte(body), 0o644)
		if _, err := LoadWaivers(f); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
