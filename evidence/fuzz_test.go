package evidence

import (
	"context"
	"testing"
	"time"
)

// FuzzVerifyPack verifies mutated packs, seeded with the genuine one and
// the hostile ones: verify must never panic, hang or read without bound,
// whatever the zip holds.
func FuzzVerifyPack(f *testing.F) {
	fx := newFixture(f)
	f.Add(fx.pack)
	for _, h := range hostilePacks {
		top, b := unpack(f, fx.pack)
		f.Add(h.make(f, top, b))
	}
	f.Fuzz(func(t *testing.T, pack []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		verifyBytes(t, ctx, pack, nil)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("verify took %v", d)
		}
	})
}
