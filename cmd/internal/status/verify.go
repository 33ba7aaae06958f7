package status

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/internal/plural"
	"github.com/billsnap/billsnap/internal/snip"
	"github.com/billsnap/billsnap/snapshot"
)

// Verified is what status --verify found: every Parquet file of every
// snapshot the store keeps, read and hashed against the SHA-256 its
// snapshot's manifest recorded when it was published.
type Verified struct {
	Snapshots  int      `json:"snapshots"`  // snapshots whose files were checked
	Files      int      `json:"files"`      // files read
	Bytes      int64    `json:"bytes"`      // their bytes
	Seconds    float64  `json:"seconds"`    // how long it took
	Unrecorded []string `json:"unrecorded"` // snapshots published before the manifest recorded files: not checked
	Differ     []Differ `json:"differ"`     // every file that differs, in path order; empty when none
}

// Differ is a file that differs from its snapshot's manifest.
type Differ struct {
	Snapshot string `json:"snapshot"`
	Path     string `json:"path"` // relative to the store
	Why      string `json:"why"`
}

// Verify checks every Parquet file of every snapshot cfg's store keeps
// (snapshot.VerifyFiles), timed by now.
func Verify(ctx context.Context, cfg config.Config, now func() time.Time) (*Verified, error) {
	start := now()
	c, err := snapshot.VerifyFiles(ctx, cfg.Options, nil)
	if err != nil {
		return nil, fmt.Errorf("--verify: %w", err)
	}
	v := &Verified{Snapshots: c.Snapshots, Files: c.Files, Bytes: c.Bytes, Seconds: now().Sub(start).Seconds(),
		Unrecorded: append([]string{}, c.Unrecorded...), Differ: []Differ{}}
	for _, d := range c.Differ {
		v.Differ = append(v.Differ, Differ{Snapshot: d.Snapshot, Path: snip.JSON(d.Path, cellLen), Why: snip.JSON(d.Why, cellLen)})
	}
	return v, nil
}

// Err is an error saying how many files differ (named above it), or nil.
func (v *Verified) Err() error {
	if v == nil || len(v.Differ) == 0 {
		return nil
	}
	return fmt.Errorf("--verify: %s %s from the SHA-256 %s manifest recorded", plural.Of(len(v.Differ), "Parquet file"),
		plural.Word(len(v.Differ), "differs", "differ"), plural.Word(len(v.Differ), "its snapshot's", "their snapshots'"))
}

// PrintVerified writes what Verify found, for people: a line of what
// was read, then a line per file that differs.
func PrintVerified(w io.Writer, v *Verified) {
	fmt.Fprintf(w, "\nVerified: %s, %s (%.1f MB) read in %.1f s: ", plural.Of(v.Snapshots, "snapshot"), plural.Of(v.Files, "Parquet file"),
		float64(v.Bytes)/1e6, v.Seconds)
	if len(v.Differ) == 0 {
		fmt.Fprintln(w, "every file hashes to its snapshot's manifest")
	} else {
		fmt.Fprintf(w, "%s %s\n", plural.Of(len(v.Differ), "file"), plural.Word(len(v.Differ), "differs", "differ"))
	}
	for _, d := range v.Differ {
		fmt.Fprintf(w, "  DIFFERS  %s: %s\n", cell(d.Path), cell(d.Why))
	}
	if len(v.Unrecorded) > 0 {
		fmt.Fprintf(w, "  not checked: %s, published before the manifest recorded its files' SHA-256\n", plural.Of(len(v.Unrecorded), "snapshot"))
	}
}
