package fileutil

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// ContextReader reads r until ctx is done, then fails with ctx's error: a
// long read (a store's files hashed, a pack's members) stops when its
// caller gives up.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// SHA256 is the hex SHA-256 of what r holds, and its length in bytes,
// read until ctx is done.
func SHA256(ctx context.Context, r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, ContextReader(ctx, r))
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
