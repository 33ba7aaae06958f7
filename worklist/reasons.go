package worklist

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/billsnap/billsnap/configkey"
)

// Reason is a reason code of the catalogue (config key worklist.reasons):
// what a waiver or a resolution records as why, in a word the reports
// total by, and the label people read.
type Reason struct {
	Code  string `yaml:"code"`
	Label string `yaml:"label"`
}

// DefaultReasons is the catalogue when none is configured: the reasons a
// close team gives most for an exception it accepts or a finding it
// resolves.
func DefaultReasons() []Reason {
	return []Reason{
		{"timing", "Timing difference: clears in a later period"},
		{"known_issue", "Known defect of the billing service, fix scheduled"},
		{"immaterial", "Below materiality: accepted as it is"},
		{"customer_agreement", "Agreed with the customer (contract, side letter, goodwill)"},
		{"corrected_at_source", "Corrected in the billing service"},
		{"credit_note", "Settled by a credit note or refund"},
		{"not_an_error", "Not an error: the rule does not fit this case"},
		{"other", "Other: the reason's text says why"},
	}
}

// codeRE is what a reason code is: lower-case letters, digits and
// underscores, starting with a letter, at most 40.
var codeRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// validateReasons checks the catalogue (keys relative to worklist): at
// least one reason, each code well formed and given once, each with a
// label of one line.
func validateReasons(rs []Reason) []error {
	if len(rs) == 0 {
		return []error{configkey.Errorf("reasons", "must name at least one reason code (the default catalogue is in docs/configuration.md)")}
	}
	var errs []error
	for i, r := range rs {
		key := fmt.Sprintf("reasons[%d]", i)
		switch {
		case !codeRE.MatchString(r.Code):
			errs = append(errs, configkey.Errorf(key+".code", "%q: want lower-case letters, digits and _, starting with a letter, at most 40", r.Code))
		case slices.IndexFunc(rs[:i], func(x Reason) bool { return x.Code == r.Code }) >= 0:
			errs = append(errs, configkey.Errorf(key+".code", "%q is given twice", r.Code))
		}
		if strings.TrimSpace(r.Label) == "" || strings.ContainsAny(r.Label, "\r\n") || len(r.Label) > 200 {
			errs = append(errs, configkey.Errorf(key+".label", "want one line of text, at most 200 bytes"))
		}
	}
	return errs
}

// Reason is the catalogue's reason of code, and whether it has it.
func (c Config) Reason(code string) (Reason, bool) {
	i := slices.IndexFunc(c.Reasons, func(r Reason) bool { return r.Code == code })
	if i < 0 {
		return Reason{}, false
	}
	return c.Reasons[i], true
}

// Codes are the catalogue's codes, in its order.
func (c Config) Codes() []string {
	out := make([]string, len(c.Reasons))
	for i, r := range c.Reasons {
		out[i] = r.Code
	}
	return out
}

// CheckCode refuses a reason code the catalogue does not have, naming
// what (a waiver, a resolution) gave it and the codes it has.
func (c Config) CheckCode(what, code string) error {
	if _, ok := c.Reason(code); ok {
		return nil
	}
	return fmt.Errorf("%s: reason_code %q is not in the catalogue (worklist.reasons): want one of %s", what, code, strings.Join(c.Codes(), ", "))
}
