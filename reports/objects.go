package reports

import "github.com/billsnap/billsnap/findings"

// Objects are r's findings as the objects JSONArray writes, in its order,
// for a writer that adds fields of its own to each (the workspace's API).
func Objects(r *findings.Report) []FindingJSON {
	out := make([]FindingJSON, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = findingJSON(r, f)
	}
	return out
}
