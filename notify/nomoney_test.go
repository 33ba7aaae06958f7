package notify

import (
	"strings"
	"testing"

	"github.com/billsnap/billsnap/findings"
)

// A material rule whose findings carry no money reads "—" in a message
// for people (an email's body, a chat's text), not "net 0.00, gross
// 0.00", and so does such a finding among the largest new ones; the
// message's JSON keeps "0.00".
func TestAMessageSaysNoMoneyWithADash(t *testing.T) {
	r := report("s1")
	r.Findings = append(r.Findings, findings.Finding{Rule: "minor", Severity: "low", Entity: "subscription", EntityID: "s9",
		Currency: "GBP", Detail: "two active charges", Status: findings.StatusNew})
	r.Material = []string{"minor (low): 2 unwaived findings, threshold 1"}
	m := materialMessage(r, r.Findings[1:])
	text := m.text()
	if strings.Contains(text, "0.00") || !strings.Contains(text, "GBP —") || !strings.Contains(text, "minor subscription s9: — GBP") {
		t.Errorf("the message's text:\n%s", text)
	}
	if m.Rules[0].Amounts["GBP"].Gross != "0.00" || m.TopFindings[0].Amount != "0.00" {
		t.Errorf("the message's JSON changed: %+v %+v", m.Rules, m.TopFindings)
	}
}
