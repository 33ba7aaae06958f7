package sandbox

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkServePage measures the sandbox's own cost of one full page of
// subscription charges (no network), to show that a client walking it
// measures itself, not the sandbox.
func BenchmarkServePage(b *testing.B) {
	sb := New(Config{Data: Options{Seed: 1, Customers: 2000}, APIKey: testKey})
	h := sb.Handler()
	req := httptest.NewRequest(http.MethodGet, "http://sandbox/SubscriptionCharges/?page=7", nil)
	req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte(testKey)))
	req.Header.Set("x-version", "nxt")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}
