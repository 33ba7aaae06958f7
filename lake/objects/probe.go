//go:build lake

package objects

import (
	"context"
	"fmt"
)

// probePrefix begins the key of a probe object: under _billsnap/, which
// no table's data is, so no reader takes one for a snapshot's file.
const probePrefix = "_billsnap/probe-"

// Probe says whether the lake can be written now: it writes a small
// object and removes it. An error names the step that failed.
func (l *Lake) Probe(ctx context.Context) error {
	token, err := randomToken()
	if err != nil {
		return err
	}
	key := probePrefix + token
	if err := l.b.WriteAll(ctx, key, []byte("billsnap check-config\n"), nil); err != nil {
		return fmt.Errorf("writing a probe object to %s: %w", l.url, err)
	}
	if err := l.b.Delete(ctx, key); err != nil {
		return fmt.Errorf("removing the probe object %s from %s: %w", key, l.url, err)
	}
	return nil
}
