// Package docs holds no code: its test reads the reference docs as a
// reader would, following every relative link, and holds them to the
// house's rules for documents (docs/testing.md).
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// documents lists the Markdown files a reader meets: the README and every
// doc under docs/, notes included.
func documents(t *testing.T) []string {
	t.Helper()
	files := []string{"../README.md"}
	for _, pattern := range []string{"*.md", "notes/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	datedRE   = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)
	fenceRE   = regexp.MustCompile("(?ms)^```.*?^```")
)

// slug is the anchor GitHub gives a heading: lower case, punctuation
// dropped but for hyphens and underscores, spaces made hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors gives the anchors of a Markdown file's headings.
func anchors(text string) map[string]bool {
	set := map[string]bool{}
	for _, m := range headingRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(text, ""), -1) {
		set[slug(m[1])] = true
	}
	return set
}

func TestEveryRelativeLinkResolves(t *testing.T) {
	for _, file := range documents(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := fenceRE.ReplaceAllString(string(b), "")
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(link, "#")
			target := file
			if path != "" {
				target = filepath.Join(filepath.Dir(file), path)
			}
			info, err := os.Stat(target)
			if err != nil {
				t.Errorf("%s: the link %s: no such file", file, link)
				continue
			}
			if anchor == "" || info.IsDir() {
				continue
			}
			tb, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(tb))[anchor] {
				t.Errorf("%s: the link %s: %s has no heading #%s", file, link, target, anchor)
			}
		}
	}
}

func TestDocsSayWhatIsNow(t *testing.T) {
	for _, file := range documents(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var dated []string
		for _, m := range headingRE.FindAllStringSubmatch(fenceRE.ReplaceAllString(string(b), ""), -1) {
			if datedRE.MatchString(m[1]) {
				dated = append(dated, m[1])
			}
		}
		if len(dated) > 3 {
			t.Errorf("%s has %d dated headings (at most 3: reference docs say what is now, the history is in git): %q", file, len(dated), dated)
		}
	}
	for file, most := range map[string]int{"benchmarks.md": 250, "testing.md": 250} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > most {
			t.Errorf("%s is %d lines, over its %d", file, n, most)
		}
	}
}
