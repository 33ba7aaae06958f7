package config

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// AbsoluteLake is the lake URL raw with a relative file:// path made
// absolute against base (the working directory when base is ""):
// file://lake, file://./lake, file://../lake/x and file:lake name a folder
// relative to base. Any other URL is returned as it is: an absolute
// file:///path, file://localhost/path, and other schemes. Load resolves
// parquet.url against the configuration file's folder; a --parquet-url
// flag is resolved against the working directory.
func AbsoluteLake(raw, base string) (string, error) {
	rel, query, ok := relativeFile(raw)
	if !ok {
		return raw, nil
	}
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return raw, err
		}
		base = wd
	}
	abs, err := filepath.Abs(filepath.Join(base, filepath.FromSlash(rel)))
	if err != nil {
		return raw, err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: query}
	return u.String(), nil
}

// relativeFile is the relative path of a file:// URL and its query, and
// whether raw is one.
func relativeFile(raw string) (rel, query string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" {
		return "", "", false
	}
	switch {
	case u.Opaque != "": // file:lake
		return u.Opaque, u.RawQuery, true
	case u.Host != "" && u.Host != "localhost": // file://lake, file://./lake
		return u.Host + u.Path, u.RawQuery, true
	case u.Host == "" && u.Path != "" && !strings.HasPrefix(u.Path, "/"):
		return u.Path, u.RawQuery, true
	}
	return "", "", false
}

// lakeBase is the folder a relative parquet.url of the file at path is
// relative to: the file's own ("" for none: the working directory).
func lakeBase(path string) string {
	if path == "" {
		return ""
	}
	return filepath.Dir(path)
}
