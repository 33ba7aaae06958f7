package config

import "testing"

// A relative file:// lake is made absolute against the base folder; an
// absolute one and other schemes are kept as they are.
func TestAbsoluteLake(t *testing.T) {
	for raw, want := range map[string]string{
		"file://lake":                 "file:///etc/billsnap/lake",
		"file://./lake":               "file:///etc/billsnap/lake",
		"file:lake":                   "file:///etc/billsnap/lake",
		"file://../lake/x":            "file:///etc/lake/x",
		"file://lake?metadata=skip":   "file:///etc/billsnap/lake?metadata=skip",
		"file:///var/lake":            "file:///var/lake",
		"file://localhost/var/lake":   "file://localhost/var/lake",
		"s3://bucket/prefix?region=x": "s3://bucket/prefix?region=x",
		"":                            "",
	} {
		got, err := AbsoluteLake(raw, "/etc/billsnap")
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", raw, got, err, want)
		}
	}
}
