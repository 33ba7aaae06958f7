package manifest

// FieldNotes is what a snapshot received of its fields that people
// should see: fields with values coerced or untyped, fields the service
// sent that have no typed column (new), and typed fields or nested lists
// that never arrived in a table that has rows (absent).
type FieldNotes struct {
	Drifted, New, Absent []FieldStats
}

// Notes picks the notes out of a snapshot's fields; tables are its
// manifest (the rows of each table).
func Notes(fields []FieldStats, tables []TableStats) FieldNotes {
	rows := map[string]int64{}
	for _, t := range tables {
		rows[t.Table] = t.DuckDBRows
	}
	var n FieldNotes
	for _, f := range fields {
		switch {
		case f.New():
			n.New = append(n.New, f)
		case f.Drifted():
			n.Drifted = append(n.Drifted, f)
		case f.Received() == 0 && rows[f.Table] > 0:
			n.Absent = append(n.Absent, f)
		}
	}
	return n
}

// Empty tells whether there is nothing to note.
func (n FieldNotes) Empty() bool { return len(n.Drifted)+len(n.New)+len(n.Absent) == 0 }

// Coerced and Untyped are the values coerced and untyped, all fields
// together.
func (n FieldNotes) Coerced() (c int64) {
	for _, f := range n.Drifted {
		c += f.Coerced
	}
	return c
}

func (n FieldNotes) Untyped() (u int64) {
	for _, f := range n.Drifted {
		u += f.Untyped
	}
	return u
}
