package reports

import (
	"time"

	"github.com/billsnap/billsnap/reconcile"
	"github.com/billsnap/billsnap/snapshot"
)

// Input is everything a report shows.
type Input struct {
	Report    *reconcile.Report
	Tables    []snapshot.TableStats  // the snapshot's manifest
	Fields    []snapshot.FieldStats  // what the snapshot received of each field
	Trend     []reconcile.TrendPoint // the last reconciliations, oldest first, this one last
	ExitCode  int                    // what the run exits with
	Generated time.Time
	MaxRows   int // findings shown per rule in HTML; the CSV has them all
}

// Verdict is the outcome in a word: MATERIAL, UNTRUSTED or OK.
func (in *Input) Verdict() string {
	switch {
	case in.Report.Untrusted:
		return "UNTRUSTED"
	case len(in.Report.Material) > 0:
		return "MATERIAL"
	}
	return "OK"
}

// collections are the walked tables of the manifest (not the child tables).
func (in *Input) collections() []snapshot.TableStats {
	var out []snapshot.TableStats
	for _, t := range in.Tables {
		if t.Table == t.Collection {
			out = append(out, t)
		}
	}
	return out
}

// duration is how long the snapshot took.
func (in *Input) duration() time.Duration {
	s := in.Report.Snapshot
	if s.Finished.Before(s.Started) {
		return 0
	}
	return s.Finished.Sub(s.Started).Round(100 * time.Millisecond)
}

// fieldNotes are the fields people should see: coerced or untyped
// values, new fields, absent ones.
func (in *Input) fieldNotes() snapshot.FieldNotes { return snapshot.Notes(in.Fields, in.Tables) }
