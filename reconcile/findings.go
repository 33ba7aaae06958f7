package reconcile

import "github.com/billsnap/billsnap/findings"

// The findings a reconciliation produces are package findings' types,
// under the names the rules' code and its tests have always used here.
type (
	Finding       = findings.Finding
	Report        = findings.Report
	SnapshotInfo  = findings.SnapshotInfo
	Rule          = findings.Rule
	Unjudged      = findings.Unjudged
	Waiver        = findings.Waiver
	Date          = findings.Date
	Period        = findings.Period
	Materiality   = findings.Materiality
	Threshold     = findings.Threshold
	RuleTotal     = findings.RuleTotal
	CurrencyTotal = findings.CurrencyTotal
)

// The statuses of findings, the rule that runs first and the customer
// shown when none is known: package findings' constants.
const (
	StatusNew       = findings.StatusNew
	StatusRecurring = findings.StatusRecurring
	StatusResolved  = findings.StatusResolved
	IncompleteRule  = findings.IncompleteRule
	NoCustomer      = findings.NoCustomer
)
