package findings

// Rule is one reconciliation rule.
type Rule struct {
	ID          string
	Severity    string
	Title       string
	Description string
	SQL         string
	Source      string // the file it came from
	// NotJudged is the rule's "not judged" query: over cur.untyped (and
	// prev.untyped), the records whose finding or amount would depend on
	// a value that arrived untyped, as entity_id, table_name, field and
	// json_type. Guarded says the rule has the section, which may say
	// "none" (a rule that reads only the spec's fields).
	NotJudged string
	Guarded   bool
}

// IncompleteRule is the rule that runs first; when it fires, the others
// are not trusted.
const IncompleteRule = "snapshot_incomplete"
