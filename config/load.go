package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Environment variables read by Load.
const (
	EnvBaseURL    = "BILLSNAP_BASE_URL"
	EnvFrontURL   = "BILLSNAP_FRONT_URL"
	EnvOut        = "BILLSNAP_OUT"
	EnvAPIKey     = "BILLSNAP_API_KEY"
	EnvAPIKeyFile = "BILLSNAP_API_KEY_FILE"
)

// Load returns the defaults overlaid with the YAML file at path (none when
// path is "") and then with the environment. A relative file:// lake
// (parquet.url) is made absolute against the file's folder
// (AbsoluteLake). Flags come after, from the caller; Validate last.
func Load(path string, getenv func(string) string) (Config, error) {
	c := Default()
	if path != "" {
		if err := c.loadFile(path); err != nil {
			return c, err
		}
		c.File = path
	}
	for env, dst := range map[string]*string{EnvBaseURL: &c.BaseURL, EnvFrontURL: &c.FrontURL, EnvOut: &c.Out} {
		if v := getenv(env); v != "" {
			*dst = v
		}
	}
	u, err := AbsoluteLake(c.Parquet.URL, lakeBase(path))
	if err != nil {
		return c, fmt.Errorf("parquet.url %s: %w", c.Parquet.URL, err)
	}
	c.Parquet.URL = u
	return c, nil
}

var secretKeys = []string{"api_key", "apikey", "key", "token", "api_key_file"}

// loadFile decodes the file strictly: an unknown key is an error naming it
// and its line; a key that looks like the API key is refused, and so is a
// file that group or others can write.
func (c *Config) loadFile(path string) error {
	b, err := readPrivate(path)
	if err != nil {
		return err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return fmt.Errorf("config file %s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		for i := 0; i < len(root.Content[0].Content); i += 2 {
			if k := root.Content[0].Content[i]; contains(secretKeys, k.Value) {
				return fmt.Errorf("config file %s: line %d: key %q: the API key is never read from the config file; set %s or use --api-key-file",
					path, k.Line, k.Value, EnvAPIKey)
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config file %s: %s", path, yamlMessage(err, &root))
	}
	return nil
}

// readPrivate reads the config file at path, refusing it when group or
// others can write it (as sshd refuses such keys): whoever can write the
// config chooses the roles, the proxies and where the API key is sent.
func readPrivate(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	if m := st.Mode().Perm(); m&0o022 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("config file %s: mode %04o lets group or others write it; chmod go-w %s", path, m, path)
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("config file %s: %d bytes, more than a configuration's %d (1 MiB): refused before it is read", path, st.Size(), MaxFileSize)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1)) // a file that grows while it is read
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("config file %s: more than a configuration's %d bytes (1 MiB): refused", path, MaxFileSize)
	}
	return b, nil
}

// MaxFileSize is the largest config file read: a configuration is a few
// KB, and what YAML's decoder holds grows with the file (a 61 MB list
// cost 4.2 GB).
const MaxFileSize = 1 << 20

// keyAt returns the dotted key whose value starts on line, or "".
func keyAt(n *yaml.Node, line int, prefix string) string {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return keyAt(n.Content[0], line, prefix)
	}
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Line == line && v.Kind == yaml.ScalarNode {
			return prefix + k.Value
		}
		if found := keyAt(v, line, prefix+k.Value+"."); found != "" {
			return found
		}
	}
	return ""
}

var unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type (\S+)`)

var errorLine = regexp.MustCompile(`^line (\d+): `)

// yamlMessage rewrites yaml.v3's errors in the words of this file, naming
// the key of a value that does not decode, and the key nearest to an
// unknown one (suggestKey).
func yamlMessage(err error, root *yaml.Node) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	var lines []string
	for l := range strings.SplitSeq(msg, "\n") {
		l = strings.TrimSpace(l)
		if m := unknownField.FindStringSubmatch(l); m != nil {
			line, _ := strconv.Atoi(m[1])
			lines = append(lines, fmt.Sprintf("line %d: unknown key %q%s", line, m[2], suggestKey(root, line, m[2], m[3])))
			continue
		}
		if plain, ok := plainTypeError(l, root); ok {
			lines = append(lines, plain)
			continue
		}
		if m := errorLine.FindStringSubmatch(l); m != nil && !strings.Contains(l, "unknown key") {
			line, _ := strconv.Atoi(m[1])
			if key := keyAt(root, line, ""); key != "" {
				l = strings.Replace(l, m[0], m[0]+"key "+key+": ", 1)
			}
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "; ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
