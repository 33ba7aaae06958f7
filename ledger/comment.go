package ledger

import (
	"fmt"
	"strings"
	"time"
)

// ActComment is an entry that adds a comment to a finding's thread.
const ActComment = "comment"

// Comment is a line of a finding's thread: the finding, known by its rule
// and its record's ID across reconciliations, and the text said of it.
type Comment struct {
	ID       string `json:"id"`
	Rule     string `json:"rule"`
	EntityID string `json:"entity_id"`
	Text     string `json:"text"`
}

// Commented is a comment with who made it and when.
type Commented struct {
	Comment
	By, Auth string
	At       time.Time
}

// Check reports what makes a comment unfit to record: a missing field,
// text over 4,000 bytes, or text with control characters (a tab and line
// breaks aside) or characters that turn the direction of the text.
func (c Comment) Check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"rule", c.Rule}, {"entity_id", c.EntityID}, {"text", c.Text}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return invalid("comment: %s required", strings.Join(missing, ", "))
	}
	if err := checkLengths(map[string]string{"comment: text": c.Text, "comment: rule": c.Rule, "comment: entity_id": c.EntityID}); err != nil {
		return err
	}
	if i := strings.IndexFunc(c.Text, controlChar); i >= 0 {
		return invalid("comment: text has a control character (%U at byte %d): write plain text", []rune(c.Text[i:])[0], i)
	}
	return nil
}

// AddComment records comment c by a, its text trimmed. The same text by
// the same person as the thread's last comment is given back instead, so
// that a form sent twice records one comment. The ID is set here.
func (l *Ledger) AddComment(a Actor, c Comment) (Commented, error) {
	c.Text = strings.TrimSpace(c.Text)
	if err := c.Check(); err != nil {
		return Commented{}, err
	}
	var out Commented
	e, err := l.Append(func(so []Entry, _ State) (*Entry, error) {
		if thread := Comments(so)[AssignKey{c.Rule, c.EntityID}]; len(thread) > 0 {
			if last := thread[len(thread)-1]; last.By == a.By && last.Text == c.Text {
				out = last
				return nil, nil
			}
		}
		c.ID = fmt.Sprintf("C%d", nextSeq(so))
		return &Entry{By: a.By, From: a.From, Auth: a.Auth, Allowed: a.Allowed, Action: ActComment, Comment: &c}, nil
	})
	if err != nil || e == nil {
		return out, err
	}
	return Commented{Comment: *e.Comment, By: e.By, Auth: e.Auth, At: e.At}, nil
}

// Comments are the threads of entries, by finding: each finding's
// comments, oldest first.
func Comments(entries []Entry) map[AssignKey][]Commented {
	out := map[AssignKey][]Commented{}
	for _, e := range entries {
		if e.Action != ActComment || e.Comment == nil {
			continue
		}
		k := AssignKey{e.Comment.Rule, e.Comment.EntityID}
		out[k] = append(out[k], Commented{Comment: *e.Comment, By: e.By, Auth: e.Auth, At: e.At})
	}
	return out
}

// checkComment checks a comment entry's comment.
func (e *Entry) checkComment() string {
	if e.Comment == nil {
		return "a comment entry without its comment"
	}
	c := e.Comment
	return need(e.Action, "comment", "id", c.ID, "rule", c.Rule, "entity_id", c.EntityID, "text", c.Text)
}
