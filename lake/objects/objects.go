//go:build lake

// Package objects is a lake's object storage (the configuration's
// parquet.url), opened through gocloud.dev/blob: it publishes a snapshot's
// files in the order package lake describes, lists and reads what is
// there, and prunes what the store no longer keeps. Only a program that
// publishes imports it, with the drivers of the schemes (lake/drivers).
//
// A snapshot's data goes to each table's data folder (which may be in
// another bucket, where a catalog located the table), then its manifest,
// then the pointer to the latest. A prune deletes manifests before data,
// then whatever the manifests and the catalog's tables no longer
// reference.
package objects

import (
	"cmp"
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
	"golang.org/x/sync/errgroup"

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
	// others are the buckets of data folders outside the lake's root (the
	// locations an Iceberg catalog gave its tables), by SCHEME://BUCKET,
	// opened with the lake's options when first used.
	others map[string]*blob.Bucket
}

// Open opens the lake at raw: SCHEME://BUCKET/PREFIX?options, the path
// being the prefix (for file://, the directory).
func Open(ctx context.Context, raw string, now func() time.Time) (*Lake, error) {
	if err := lake.Check(raw); err != nil {
		return nil, fmt.Errorf("parquet.url %s: %w", raw, err)
	}
	u, _ := url.Parse(raw)
	if u.Scheme == "file" {
		if err := os.MkdirAll(u.Path, 0o755); err != nil {
			return nil, fmt.Errorf("parquet.url %s: %w", raw, err)
		}
	}
	b, err := openBucket(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("parquet.url %s: %w", raw, err)
	}
	return &Lake{b: b, url: raw, now: now, others: map[string]*blob.Bucket{}}, nil
}

// openBucket opens the bucket of u (for file://, its directory), its
// path being the prefix.
func openBucket(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	open := *u
	if u.Scheme != "file" {
		q := u.Query()
		if p := strings.Trim(u.Path, "/"); p != "" {
			q.Set("prefix", p+"/")
		}
		open.Path, open.RawQuery = "", q.Encode()
	} else {
		// No .attrs sidecar beside each object: nothing else in the
		// lake knows of them, and none is left behind.
		q := u.Query()
		q.Set("metadata", "skip")
		open.RawQuery = q.Encode()
	}
	return blob.OpenBucket(ctx, open.String())
}

// at is the bucket and key of the object at key: a key under the prefix,
// or the URL of an object outside the lake's root, whose bucket (of the
// lake's scheme, opened with its options) is opened once.
func (l *Lake) at(ctx context.Context, key string) (*blob.Bucket, string, error) {
	if !strings.Contains(key, "://") {
		return l.b, key, nil
	}
	if k, ok := l.key(key); ok {
		return l.b, k, nil
	}
	u, err := url.Parse(key)
	lu, _ := url.Parse(l.url)
	if err != nil || u.Scheme != lu.Scheme {
		return nil, "", fmt.Errorf("%s is not in a bucket of the lake %s (scheme %s)", key, lake.Root(l.url), lu.Scheme)
	}
	base := u.Scheme + "://" + u.Host
	if l.others[base] == nil {
		other := *lu
		other.Host, other.Path = u.Host, ""
		if u.Scheme == "file" {
			other.Path = "/"
		}
		b, err := openBucket(ctx, &other)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", base, err)
		}
		l.others[base] = b
	}
	return l.others[base], strings.TrimPrefix(u.Path, "/"), nil
}

// URL is the lake's parquet.url, as configured (it holds no credentials).
func (l *Lake) URL() string { return l.url }

// Close lets go of the buckets.
func (l *Lake) Close() error {
	for _, b := range l.others {
		b.Close()
	}
	return l.b.Close()
}

// Publish publishes snapshot id from its local files: the data, each file
// in a snapshot_id=<id> folder of its Dir (by default its table's data
// folder under the root, lake.DataFolder), a few at a time, then the
// manifest, then the latest pointer (when id is newer than the one it
// names).
func (l *Lake) Publish(ctx context.Context, id string, files []lake.Local) (lake.Manifest, error) {
	token, err := randomToken()
	if err != nil {
		return lake.Manifest{}, err
	}
	m := lake.Manifest{Snapshot: id, Files: make([]lake.File, len(files))}
	if err := l.uploadAll(ctx, id, token, files, m.Files); err != nil {
		return lake.Manifest{Snapshot: id}, err
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

// uploads is how many data files a publish uploads at once: each upload
// waits mostly on the store.
const uploads = 4

// uploadAll uploads files, up to uploads at once, each into a
// snapshot_id=<id> folder of its Dir, and says in out (as long as files)
// what each wrote. On the first failure it starts no more uploads; what
// was written has no manifest.
func (l *Lake) uploadAll(ctx context.Context, id, token string, files []lake.Local, out []lake.File) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(uploads)
	for i, f := range files {
		dir := cmp.Or(f.Dir, lake.DataFolder(lake.Root(l.url), f.Table))
		key := fmt.Sprintf("%s/snapshot_id=%s/part-%s-%05d.parquet", dir, id, token, i)
		if k, ok := l.key(key); ok {
			key = k
		}
		b, k, err := l.at(ctx, key)
		if err != nil {
			g.Wait()
			return fmt.Errorf("publishing %s to %s: %w", f.Path, l.url, err)
		}
		g.Go(func() error {
			file, err := upload(ctx, b, f.Path, k)
			if err != nil {
				return fmt.Errorf("publishing %s to %s: %w", f.Path, l.url, err)
			}
			file.Key, file.Table = key, f.Table
			out[i] = file
			crashpoint.Hit("lake.data")
			return nil
		})
	}
	return g.Wait()
}

// upload copies the file at local to key k of bucket b, and says what it
// wrote (its Key left for the caller).
func upload(ctx context.Context, b *blob.Bucket, local, k string) (lake.File, error) {
	in, err := os.Open(local)
	if err != nil {
		return lake.File{}, err
	}
	defer in.Close()
	w, err := b.NewWriter(ctx, k, &blob.WriterOptions{ContentType: "application/vnd.apache.parquet"})
	if err != nil {
		return lake.File{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), in)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return lake.File{Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, err
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
// file the tables reference. Data folders outside the lake's root (the
// locations a catalog gave its tables) are pruned of the data objects
// nothing lists as well; their metadata is the catalog's. On a file://
// lake it then removes the directories left empty. It returns the
// snapshots removed.
func (l *Lake) Prune(ctx context.Context, keep []string, c lake.Catalog) ([]string, error) {
	ms, err := l.Manifests(ctx)
	if err != nil {
		return nil, err
	}
	outside := outsideFolders(ms)
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
	for _, folder := range outside {
		if err := l.removeUnlistedIn(ctx, folder, listed); err != nil {
			return removed, err
		}
	}
	return removed, l.removeEmptyDirs()
}

// outsideFolders are the data folders (each the folder of a snapshot_id=
// folder) of the files of ms that are outside the lake's root, as URLs.
func outsideFolders(ms []lake.Manifest) []string {
	var out []string
	for _, m := range ms {
		for _, f := range m.Files {
			if strings.Contains(f.Key, "://") {
				folder := f.Key[:strings.LastIndex(f.Key, "/")] // its snapshot_id= folder
				out = append(out, folder[:strings.LastIndex(folder, "/")])
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// removeUnlistedIn deletes every data object in the folder at URL folder,
// outside the lake's root, whose URL listed does not hold.
func (l *Lake) removeUnlistedIn(ctx context.Context, folder string, listed map[string]bool) error {
	b, prefix, err := l.at(ctx, folder)
	if err != nil {
		return err
	}
	u, _ := url.Parse(folder)
	it := b.List(&blob.ListOptions{Prefix: prefix + "/"})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", folder, err)
		}
		if !isData(obj.Key) || listed[u.Scheme+"://"+u.Host+"/"+obj.Key] {
			continue
		}
		if err := b.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("pruning %s/%s: %w", folder, obj.Key, err)
		}
	}
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
		} else {
			listed[u] = true
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
// snapshot_id= directory of a table's data folder (PREFIX/<table>/data/,
// or PREFIX/<table>/ itself where billsnap published before it used
// Iceberg's layout), not billsnap's own objects nor a table format's
// metadata.
func isData(key string) bool {
	return !strings.HasPrefix(key, "_billsnap/") && strings.Contains(path.Dir(key), "/snapshot_id=")
}

// Read copies the object at key (a File.Key: under the prefix, or a URL
// outside the root) into w.
func (l *Lake) Read(ctx context.Context, key string, w io.Writer) error {
	b, k, err := l.at(ctx, key)
	if err != nil {
		return err
	}
	r, err := b.NewReader(ctx, k, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, r)
	return err
}

// DataKeys are the keys of every data object under the prefix (in a
// snapshot_id= directory, in either layout), sorted: those of published snapshots and any a
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

// Add uploads the local file at local into the snapshot_id=<id> folder of
// the folder at URL dir, as <kind>-<token>.parquet, under a name no other
// attempt uses, and says what it wrote (its Key the object's key under
// the prefix, or its URL outside the root). No manifest lists it: a
// table format's metadata references it, or the next prune removes it.
func (l *Lake) Add(ctx context.Context, dir, id, kind, local string) (lake.File, error) {
	token, err := randomToken()
	if err != nil {
		return lake.File{}, err
	}
	key := fmt.Sprintf("%s/snapshot_id=%s/%s-%s.parquet", dir, id, kind, token)
	if k, ok := l.key(key); ok {
		key = k
	}
	b, k, err := l.at(ctx, key)
	if err == nil {
		var f lake.File
		if f, err = upload(ctx, b, local, k); err == nil {
			f.Key = key
			return f, nil
		}
	}
	return lake.File{}, fmt.Errorf("publishing %s to %s: %w", local, l.url, err)
}
