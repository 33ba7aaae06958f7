package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/billsnap/billsnap/flux"
)

// The flux key: read from the file as written (12.5 stays 12.5: no
// float between), strict about its keys, and each value that is not a
// number of at most two decimals, or negative, named.
func TestFluxIsReadAndValidated(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, err := Load(write("ok.yml", "flux: {percent: 12.5, amount: 250}\n"), env(nil))
	if err != nil || c.Flux != (flux.Options{Percent: "12.5", Amount: "250"}) {
		t.Fatalf("flux read as %+v, %v", c.Flux, err)
	}
	if _, err := Load(write("typo.yml", "flux:\n  pct: 3\n"), env(nil)); err == nil || !strings.Contains(err.Error(), `line 2: unknown key "pct"`) {
		t.Errorf("an unknown key of flux: %v", err)
	}
	c = Default()
	c.BaseURL, c.FrontURL = "https://a.example.com", "https://b.example.com"
	c.Flux = flux.Options{Percent: "ten", Amount: "-5.00"}
	err = c.Validate()
	for _, key := range []string{"flux.percent", "flux.amount"} {
		if err == nil || !strings.Contains(err.Error(), "config key "+key+":") {
			t.Errorf("Validate does not name %s: %v", key, err)
		}
	}
	c.Flux = flux.Options{Percent: "0", Amount: "0.5"}
	if err := c.Validate(); err != nil {
		t.Errorf("0 and 0.5: %v", err)
	}
}
