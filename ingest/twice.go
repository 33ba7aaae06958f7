package ingest

import (
	"fmt"
	"strings"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/internal/jsontext"
)

// A record that sends a member name twice is read as its first: the
// typed column takes the first value (place), and _raw is written again
// without the later ones, so that every reader of _raw agrees with the
// column (DuckDB's json_extract reads the first, JavaScript's JSON.parse
// and Python's json the last). For a field the spec defines, a name
// twice is a contract break. Each later one is counted
// (manifest.FieldStats.Twice).

// markTwice notes, per field of the current record, whether its name came
// before in the record (placed says where each went: a column, -1, or a
// fresh field).
func (b *rowBuilder) markTwice(fields []extract.Field) {
	b.twice = b.twice[:0]
	if len(fields) < 2 {
		return
	}
	for i := 1; i < len(fields); i++ {
		for j := range i {
			if fields[j].Name == fields[i].Name {
				b.twice = append(b.twice, i)
				break
			}
		}
	}
}

// checkTwice refuses a record that sends a contract field's name twice,
// and returns raw without the later members of a name sent twice
// (unchanged when none was).
func (b *rowBuilder) checkTwice(fields []extract.Field, raw string) (string, error) {
	if len(b.twice) == 0 {
		return raw, nil
	}
	for _, i := range b.twice {
		if s := b.slots[i]; s >= 0 && b.columns[s].Contract {
			return "", fmt.Errorf("field %s is sent twice in the record; the spec defines it, once", fields[i].Name)
		}
	}
	var out strings.Builder
	out.Grow(len(raw))
	out.WriteByte('{')
	k := 0
	for i, f := range fields {
		if k < len(b.twice) && b.twice[k] == i {
			k++
			continue
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		out.WriteString(jsontext.Quote(f.Name))
		out.WriteByte(':')
		out.WriteString(f.Raw)
	}
	out.WriteByte('}')
	return out.String(), nil
}

// countTwice tallies the later members of names sent twice in record id.
func (b *rowBuilder) countTwice(id string) {
	for _, i := range b.twice {
		if f := b.tally(b.slots[i]); f != nil {
			f.mark(&f.twice, id)
		}
	}
	b.twice = b.twice[:0]
}
