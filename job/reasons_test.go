package job

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/usage"
)

// A waiver of the waivers file may give a reason code of the catalogue;
// one the catalogue lacks is a usage error naming the file, the waiver and
// the codes there are.
func TestAFileWaiversReasonCodeIsChecked(t *testing.T) {
	cfg := config.Default()
	cfg.Out = t.TempDir()
	file := filepath.Join(t.TempDir(), "waivers.yaml")
	write := func(code string) {
		doc := "waivers:\n  - {rule: paid_without_payment, entity_id: e1, reason: cash, reason_code: " + code + ", owner: ann, expires: 2099-12-31}\n"
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("credit_note")
	o, err := ReconcileOptions(cfg, "", file)
	if err != nil || len(o.Waivers) != 1 || o.Waivers[0].ReasonCode != "credit_note" {
		t.Fatalf("a known code: %+v, %v", o.Waivers, err)
	}
	write("bogus")
	_, err = ReconcileOptions(cfg, "", file)
	if u := (usage.Error{}); !errors.As(err, &u) || !strings.Contains(err.Error(), "waivers file "+file+": waiver 1: reason_code \"bogus\" is not in the catalogue (worklist.reasons): want one of timing,") {
		t.Fatalf("an unknown code: %v", err)
	}
}
