package workspace

import (
	"encoding/json"
	"net/http"
	"testing"
)

// explainFlux explains every line of period's flux review that waits for
// an explanation, through billsnap serve's API at base: what a sign-off
// of the period needs first.
func explainFlux(t *testing.T, base, period string) {
	t.Helper()
	var v struct {
		Lines []struct {
			Measure     string           `json:"measure"`
			Currency    string           `json:"currency"`
			Over        bool             `json:"over_threshold"`
			Explanation *json.RawMessage `json:"explanation"`
		} `json:"lines"`
	}
	api(t, base, "GET", "/api/flux?period="+period, "", http.StatusOK, &v)
	for _, l := range v.Lines {
		if l.Over && l.Explanation == nil {
			b, _ := json.Marshal(map[string]string{"measure": l.Measure, "currency": l.Currency, "text": "reviewed with the sales ledger"})
			api(t, base, "POST", "/api/flux/"+period+"/explanations", string(b), http.StatusCreated, nil)
		}
	}
}
