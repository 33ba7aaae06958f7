package findings

// NoCustomer is the customer shown for a finding whose customer is not
// known: it names none (a collection), or the record it names was not
// found, or its customer's fields were not there.
const NoCustomer = "—"

// Customer is how a finding's customer is shown: its name and ID, its ID
// alone when its name is not known, NoCustomer when it is not.
func (f Finding) Customer() string {
	switch {
	case f.CustomerID == "":
		return NoCustomer
	case f.CustomerName == "":
		return f.CustomerID
	}
	return f.CustomerName + " (" + f.CustomerID + ")"
}

// Nameless counts the findings of this snapshot whose customer's name is
// not known, of those that name a record (not snapshot_incomplete's).
func (r *Report) Nameless() int {
	n := 0
	for _, f := range r.Findings {
		if f.Status != StatusResolved && f.Rule != IncompleteRule && f.CustomerName == "" {
			n++
		}
	}
	return n
}
