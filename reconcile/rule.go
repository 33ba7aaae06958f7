package reconcile

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/configkey"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/internal/snip"
)

//go:embed rules/*.sql
var shipped embed.FS

// notJudgedMark starts a rule file's "not judged" section: a line
// "-- not judged:" followed by the query, or "-- not judged: none".
var notJudgedMark = regexp.MustCompile(`^--\s*not judged\s*:\s*(.*)$`)

// ParseRule reads a rule file: a header of "-- key: value" lines (id,
// severity, title, description), then the query.
// ruleID is the alphabet of a rule's ID, which every report, chat message
// and file name prints as it is.
var ruleID = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

func ParseRule(source, text string) (findings.Rule, error) {
	r := findings.Rule{Source: source}
	var body, notJudged []string
	header := true
	for line := range strings.SplitSeq(text, "\n") {
		if m := notJudgedMark.FindStringSubmatch(strings.TrimSpace(line)); m != nil && !r.Guarded {
			r.Guarded, header = true, false
			if rest := strings.TrimSpace(m[1]); rest != "" && !strings.HasPrefix(rest, "none") {
				return r, fmt.Errorf("rule %s: after '-- not judged:' comes the query on the next lines, or 'none'", source)
			}
			continue
		}
		if r.Guarded {
			notJudged = append(notJudged, line)
			continue
		}
		if header {
			if k, v, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "--"), ":"); ok && strings.HasPrefix(strings.TrimSpace(line), "--") {
				set(&r, strings.TrimSpace(k), strings.TrimSpace(v))
				continue
			}
			header = false
		}
		body = append(body, line)
	}
	r.SQL = strings.TrimRight(strings.TrimSpace(strings.Join(body, "\n")), ";")
	r.NotJudged = strings.TrimRight(strings.TrimSpace(strings.Join(notJudged, "\n")), ";")
	switch {
	case !ruleID.MatchString(r.ID):
		return r, fmt.Errorf("rule %s: the header needs '-- id: <name>' (ASCII letters, digits, _; at most 64), not %q", source, snip.String(r.ID, 80))
	case !slices.Contains(findings.Severities(), r.Severity):
		return r, fmt.Errorf("rule %s: severity %q is not one of %s", source, r.Severity, strings.Join(findings.Severities(), ", "))
	case r.SQL == "":
		return r, fmt.Errorf("rule %s: no query after the header", source)
	}
	return r, nil
}

func set(r *findings.Rule, key, value string) {
	switch key {
	case "id":
		r.ID = value
	case "severity":
		r.Severity = value
	case "title":
		r.Title = value
	case "description":
		r.Description = value
	}
}

// Rules returns the shipped rules, snapshot_incomplete first, then the
// others in the order of the rules document; a user directory's .sql files
// replace shipped rules with the same ID (in place) or are added after. A
// user directory that is missing, or is not a directory, is an error.
func Rules(userDir string) ([]findings.Rule, error) {
	rules, err := readRules(shipped, "rules")
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(rules, func(a, b findings.Rule) int {
		return boolInt(b.ID == findings.IncompleteRule) - boolInt(a.ID == findings.IncompleteRule)
	})
	if userDir == "" {
		return rules, nil
	}
	if st, err := os.Stat(userDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("rules directory %s: %w", userDir, notADir(err))
	}
	user, err := readRules(os.DirFS(userDir), ".")
	if err != nil {
		return nil, fmt.Errorf("rules directory %s: %w", userDir, err)
	}
	for _, u := range user {
		u.Source = filepath.Join(userDir, u.Source)
		if i := slices.IndexFunc(rules, func(r findings.Rule) bool { return r.ID == u.ID }); i >= 0 {
			rules[i] = u
		} else {
			rules = append(rules, u)
		}
	}
	return rules, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readRules parses every .sql file of dir in fsys, in name order; two
// files with one ID are an error.
// notADir is err, or a plain error when the path is a file.
func notADir(err error) error {
	if err != nil {
		return err
	}
	return errors.New("not a directory")
}

func readRules(fsys fs.FS, dir string) ([]findings.Rule, error) {
	names, err := fs.Glob(fsys, filepath.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var rules []findings.Rule
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		r, err := ParseRule(filepath.Base(name), string(b))
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(rules, func(o findings.Rule) bool { return o.ID == r.ID }) {
			return nil, fmt.Errorf("rule %s: the ID %s is used by another file", name, r.ID)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// checkMateriality refuses thresholds for rules that do not exist.
func checkMateriality(m findings.Materiality, rules []findings.Rule) error {
	for id := range m.Rules {
		if !slices.ContainsFunc(rules, func(r findings.Rule) bool { return r.ID == id }) {
			return &configkey.Error{Key: "reconcile.materiality.rules." + id, Msg: "no rule has this ID"}
		}
	}
	return nil
}
