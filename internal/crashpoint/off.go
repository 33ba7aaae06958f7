//go:build !crashpoints

package crashpoint

// Hit marks the moment name; it does nothing in this build.
func Hit(string) {}

// Err is the error the moment name meets; nil in this build.
func Err(string) error { return nil }
