package fileutil

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestSHA256StopsWhenItsContextIsDone(t *testing.T) {
	sum, n, err := SHA256(context.Background(), strings.NewReader("abc"))
	if err != nil || n != 3 || sum != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("SHA256(abc) = %s, %d, %v", sum, n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := SHA256(ctx, strings.NewReader("abc")); !errors.Is(err, context.Canceled) {
		t.Fatalf("a done context: %v, want context.Canceled", err)
	}
}
