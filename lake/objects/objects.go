// Package objects is a lake's object storage (the configuration's
// parquet.url), opened through gocloud.dev/blob: it publishes a snapshot's
// files in the order package lake describes, lists and reads what is
// there, and prunes what the store no longer keeps. Only a program that
// publishes imports it, with the drivers of the schemes (lake/drivers).
package objects

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/billsnap/billsnap/internal/crashpoint"
	"github.com/billsnap/billsnap/lake"
)

// Keys of billsnap's own objects under the prefix.
const (
	manifestDir = "_billsnap/manifests/"
	latestKey   = "_billsnap/latest"
)

// Lake is the object storage of a parquet.url.
type Lake struct {
	b   *blob.Bucket
	url string // as configured: it holds no credentials
	now func() time.Time
}

// Open opens the lake at raw: SCHEME://BUCKET/PREFIX?options, the path
// being the prefix (for file://, the directory).
func Open(ctx context.Context, raw string, now func() time.Time) (*Lake, error) {
	if err := lake.Check(raw); err != nil {
		return nil, fmt.Errorf("parquet.url %s: %w", raw, err)
	}
	u, _ := url.Parse(raw)
	open := *u
	if u.Scheme != "file" {
		q := u.Query()
		if p := strings.Trim(u.Path, "/"); p != "" {
			q.Set("prefix", p+"/")
		}
		open.Path, open.RawQuery = "", q.Encode()
	} else {
		if err := os.MkdirAll(u.Path, 0o755); err != nil {
			return nil, fmt.Errorf("parquet.url %s: %w", raw, err)
		}
		// No .attrs sidecar beside each object: nothing else in the
		// lake knows of them, and none is left behind.
		q := u.Query()
		q.Set("metadata", "skip")
		open.RawQuery = q.Encode()
	}
	b, err := blob.OpenBucket(ctx, open.String())
	if err != nil {
		return nil, fmt.Errorf("parquet.url %s: %w", raw, err)
	}
	return &Lake{b: b, url: raw, now: now}, nil
}

// URL is the lake's parquet.url, as configured (it holds no credentials).
func (l *Lake) URL() string { return l.url }

// Close lets go of the bucket.
func (l *Lake) Close() error { return l.b.Close() }

// Publish publishes snapshot id from its local files: the data, then the
// manifest, then the latest pointer (when id is newer than the one it
// names).
func (l *Lake) Publish(ctx context.Context, id string, files []lake.Local) (lake.Manifest, error) {
	token, err := randomToken()
	if err != nil {
		return lake.Manifest{}, err
	}
	m := lake.Manifest{Snapshot: id}
	for i, f := range files {
		key := fmt.Sprintf("%s/snapshot_id=%s/part-%s-%05d.parquet", f.Table, id, token, i)
		file, err := l.upload(ctx, f.Path, key)
		if err != nil {
			return m, fmt.Errorf("publishing %s to %s: %w", f.Path, l.url, err)
		}
		file.Table = f.Table
		m.Files = append(m.Files, file)
		crashpoint.Hit("lake.data")
	}
	m.Published = l.now().UTC()
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, err
	}
	if err := l.b.WriteAll(ctx, manifestDir+id+".json", body, &blob.WriterOptions{ContentType: "application/json"}); err != nil {
		return m, fmt.Errorf("the manifest of %s at %s: %w", id, l.url, err)
	}
	crashpoint.Hit("lake.manifest")
	latest, err := l.Latest(ctx)
	if err != nil || latest > id {
		return m, err
	}
	return m, l.b.WriteAll(ctx, latestKey, []byte(id+"\n"), &blob.WriterOptions{ContentType: "text/plain"})
}

// upload copies the file at local to key, and says what it wrote.
func (l *Lake) upload(ctx context.Context, local, key string) (lake.File, error) {
	in, err := os.Open(local)
	if err != nil {
		return lake.File{}, err
	}
	defer in.Close()
	w, err := l.b.NewWriter(ctx, key, &blob.WriterOptions{ContentType: "application/vnd.apache.parquet"})
	if err != nil {
		return lake.File{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), in)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return lake.File{Key: key, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, err
}

func randomToken() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Latest is the snapshot the latest pointer names; "" when there is none.
func (l *Lake) Latest(ctx context.Context) (string, error) {
	b, err := l.b.ReadAll(ctx, latestKey)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return "", nil
	}
	return strings.TrimSpace(string(b)), err
}

// Manifests are the published snapshots, oldest first.
func (l *Lake) Manifests(ctx context.Context) ([]lake.Manifest, error) {
	var out []lake.Manifest
	it := l.b.List(&blob.ListOptions{Prefix: manifestDir})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("listing the manifests at %s: %w", l.url, err)
		}
		if !strings.HasSuffix(obj.Key, ".json") {
			continue
		}
		b, err := l.b.ReadAll(ctx, obj.Key)
		if err != nil {
			return nil, err
		}
		var m lake.Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("manifest %s at %s: %w", obj.Key, l.url, err)
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b lake.Manifest) int { return strings.Compare(a.Snapshot, b.Snapshot) })
	return out, nil
}

// Prune keeps the snapshots keep names and removes the others: each one's
// manifest first, then (when c is not nil) its snapshots of the catalog's
// tables, then its files; then every data object that no manifest lists
// (what a publish cut short left) and every object in the catalog's
// metadata directories that its tables no longer reference, keeping every
// file the tables reference. On a file:// lake it then removes the
// directories left empty. It returns the snapshots removed.
func (l *Lake) Prune(ctx context.Context, keep []string, c lake.Catalog) ([]string, error) {
	ms, err := l.Manifests(ctx)
	if err != nil {
		return nil, err
	}
	var removed []string
	listed := map[string]bool{}
	for _, m := range ms {
		if slices.Contains(keep, m.Snapshot) {
			for _, f := range m.Files {
				listed[f.Key] = true
			}
			continue
		}
		if err := l.b.Delete(ctx, manifestDir+m.Snapshot+".json"); err != nil {
			return removed, fmt.Errorf("pruning %s at %s: %w", m.Snapshot, l.url, err)
		}
		removed = append(removed, m.Snapshot)
	}
	var metaDirs []string
	if c != nil {
		if metaDirs, err = l.referenced(ctx, c, keep, listed); err != nil {
			return removed, err
		}
	}
	if err := l.removeUnlisted(ctx, listed, metaDirs); err != nil {
		return removed, err
	}
	return removed, l.removeEmptyDirs()
}

// referenced expires the catalog's snapshots that keep does not name,
// adds to listed the keys of every file its tables still reference, and
// returns the keys of their metadata directories (each ending in /).
func (l *Lake) referenced(ctx context.Context, c lake.Catalog, keep []string, listed map[string]bool) ([]string, error) {
	if err := c.Expire(ctx, keep); err != nil {
		return nil, err
	}
	refs, err := c.Referenced(ctx)
	if err != nil {
		return nil, err
	}
	for u := range refs.Files {
		if key, ok := l.key(u); ok {
			listed[key] = true
		}
	}
	var dirs []string
	for _, d := range refs.MetadataDirs {
		if key, ok := l.key(d); ok && key != "" {
			dirs = append(dirs, key+"/")
		}
	}
	return dirs, nil
}

// key is the key of the object at URL u, when u is under the lake's root.
func (l *Lake) key(u string) (string, bool) {
	return strings.CutPrefix(u, lake.Root(l.url)+"/")
}

// removeUnlisted deletes every data object and every object in a
// metadata directory (metaDirs) that listed does not hold.
func (l *Lake) removeUnlisted(ctx context.Context, listed map[string]bool, metaDirs []string) error {
	it := l.b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", l.url, err)
		}
		inMeta := slices.ContainsFunc(metaDirs, func(d string) bool { return strings.HasPrefix(obj.Key, d) })
		if listed[obj.Key] || !(isData(obj.Key) || inMeta) {
			continue
		}
		if err := l.b.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("pruning %s at %s: %w", obj.Key, l.url, err)
		}
	}
}

// removeEmptyDirs removes, on a file:// lake, the directories under its
// root that hold nothing (those of snapshots pruned), and the .attrs
// sidecars an earlier billsnap had gocloud write beside each object (it
// writes none now, and reads none).
func (l *Lake) removeEmptyDirs() error {
	u, err := url.Parse(l.url)
	if err != nil || u.Scheme != "file" {
		return err
	}
	var dirs []string
	err = filepath.WalkDir(u.Path, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			dirs = append(dirs, p)
		case strings.HasSuffix(p, ".attrs"):
			return os.Remove(p)
		}
		return nil
	})
	for i := len(dirs) - 1; i > 0 && err == nil; i-- {
		if entries, rerr := os.ReadDir(dirs[i]); rerr == nil && len(entries) == 0 {
			err = os.Remove(dirs[i])
		}
	}
	return err
}

// isData says whether the object at key is a snapshot's data: in a
// snapshot_id= directory of a table (not billsnap's own objects, nor a
// table format's metadata).
func isData(key string) bool {
	return !strings.HasPrefix(key, "_billsnap/") && strings.Contains(path.Dir(key), "/snapshot_id=")
}

// Read copies the object at key into w.
func (l *Lake) Read(ctx context.Context, key string, w io.Writer) error {
	r, err := l.b.NewReader(ctx, key, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, r)
	return err
}

// DataKeys are the keys of every data object under the prefix (in a
// snapshot_id= directory), sorted: those of published snapshots and any a
// publish cut short left.
func (l *Lake) DataKeys(ctx context.Context) ([]string, error) {
	var out []string
	it := l.b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			slices.Sort(out)
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", l.url, err)
		}
		if isData(obj.Key) {
			out = append(out, obj.Key)
		}
	}
}
