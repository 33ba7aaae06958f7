package findings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// Waiver is a known exception: its finding is still listed, marked waived,
// and does not count toward materiality until it expires.
type Waiver struct {
	Rule     string `yaml:"rule"`
	EntityID string `yaml:"entity_id"`
	Reason   string `yaml:"reason"`
	// ReasonCode is the code of the catalogue (worklist.reasons) the
	// waiver gives as why; optional ("": none given).
	ReasonCode string `yaml:"reason_code"`
	Owner      string `yaml:"owner"`
	Expires    Date   `yaml:"expires"`
	// ID and By are a waiver made in the workspace: its ledger ID and who
	// made it. A waiver of the file has neither.
	ID string `yaml:"-"`
	By string `yaml:"-"`
}

// Date is a calendar day, written YYYY-MM-DD.
type Date struct{ time.Time }

// UnmarshalYAML reads YYYY-MM-DD.
func (d *Date) UnmarshalYAML(n *yaml.Node) error {
	t, err := time.Parse("2006-01-02", n.Value)
	if err != nil {
		return fmt.Errorf("line %d: expires %q: want a date as YYYY-MM-DD", n.Line, n.Value)
	}
	d.Time = t
	return nil
}

// ActiveOn reports whether the waiver applies at t: through the whole of
// its expiry day (UTC).
func (w Waiver) ActiveOn(t time.Time) bool { return t.UTC().Before(w.Expires.AddDate(0, 0, 1)) }

// LoadWaivers reads a waivers file: a YAML document with a list under
// "waivers". Every field is required; an unknown key is an error.
func LoadWaivers(path string) ([]Waiver, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("waivers: %w", err)
	}
	var doc struct {
		Waivers []Waiver `yaml:"waivers"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("waivers file %s: %w", path, err)
	}
	for i, w := range doc.Waivers {
		if w.Rule == "" || w.EntityID == "" || w.Reason == "" || w.Owner == "" || w.Expires.IsZero() {
			return nil, fmt.Errorf("waivers file %s: waiver %d: rule, entity_id, reason, owner and expires are all required", path, i+1)
		}
	}
	return doc.Waivers, nil
}
