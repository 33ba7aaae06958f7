package reconcile

import (
	"github.com/billsnap/billsnap/findings"
)

// r2First is when r2 first saw the finding like f.
func r2First(r2 *findings.Report, f findings.Finding) string {
	for _, g := range r2.Findings {
		if g.Rule == f.Rule && g.EntityID == f.EntityID {
			return g.FirstSeen
		}
	}
	return ""
}
