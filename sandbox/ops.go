package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// setAmount serves PUT /v3/subscriptioncharges/{ref}/setamountbyreferenceid:
// it sets quantity on the active charge of that reference.
func (s *Sandbox) setAmount(r *http.Request) reply {
	ref := r.PathValue("ref")
	if !guidRE.MatchString(ref) {
		return fail(errorf(7, TypeBadParameter, "The referenceId %q is not a GUID.", ref))
	}
	body, err := decodeBody(r, 7)
	if err != nil {
		return fail(err)
	}
	q, ok := intField(body, "quantity")
	if !ok || q < 0 {
		e := errorf(7, TypeBadModelState, "The quantity field is required and must be a whole number of 0 or more.")
		e.detail = "quantity"
		return fail(e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lists["subscriptioncharges"]
	known := false
	for i, rec := range l.recs {
		c := rec.(*SubscriptionCharge)
		if !strings.EqualFold(c.ReferenceID, ref) {
			continue
		}
		known = true
		if c.Status == StatusActive {
			c.Amount = q
			l.reencode(i)
			return replyOK(l.enc[i])
		}
	}
	if known {
		return fail(errorf(7, TypeUnprocessable, "The reference %s has no active subscription charge.", ref))
	}
	return notFoundReply(7, "No subscription charge", "reference "+ref)
}

var currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)

// createCustomer serves POST /v3/customers.
func (s *Sandbox) createCustomer(r *http.Request) reply {
	body, err := decodeBody(r, 2)
	if err != nil {
		return fail(err)
	}
	c := &Customer{ID: s.newID(), Created: s.data.Now}
	var okName, okCompany, okCur bool
	c.FullName, okName = stringField(body, "FullName")
	c.CompanyName, okCompany = stringField(body, "CompanyName")
	c.CurrencyCode, okCur = stringField(body, "CurrencyCode")
	switch {
	case !okName || c.FullName == "":
		return fail(modelError(2, "FullName", "The FullName field is required."))
	case !okCompany && field(body, "CompanyName") != nil:
		return fail(modelError(2, "CompanyName", "The CompanyName field must be a string."))
	case field(body, "CurrencyCode") != nil && (!okCur || !currencyRE.MatchString(c.CurrencyCode)):
		return fail(modelError(2, "CurrencyCode", "The CurrencyCode field must be a currency code of 3 capital letters."))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lists["customers"]
	l.appendRecord(c)
	return created(l.enc[len(l.enc)-1])
}

// markPaid serves PUT /v3/invoices/{id}/markpaid/.
func (s *Sandbox) markPaid(r *http.Request) reply {
	id := r.PathValue("id")
	if !guidRE.MatchString(id) {
		return fail(errorf(8, TypeBadParameter, "The invoiceId %q is not a GUID.", id))
	}
	body, err := decodeBody(r, 8)
	if err != nil {
		return fail(err)
	}
	raw, _ := stringField(body, "PaymentDate")
	at, perr := time.Parse(time.RFC3339, raw)
	if perr != nil {
		return fail(modelError(8, "PaymentDate", "The PaymentDate field is required and must be an ISO 8601 date-time."))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lists["invoices"]
	i := l.find(id)
	if i < 0 {
		return notFoundReply(8, "Invoice", id)
	}
	inv := l.recs[i].(*Invoice)
	if inv.PaymentDate != nil {
		return fail(errorf(8, TypeUnprocessable, "Invoice %s has already been marked paid.", inv.ID))
	}
	at = at.UTC()
	inv.PaymentDate = &at
	l.reencode(i)
	return replyOK(l.enc[i])
}

// pause serves PUT /v3/subscriptions/{id}/pause (a path the spec does not
// give; docs/sandbox.md names it).
func (s *Sandbox) pause(r *http.Request) reply {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.lists["subscriptions"]
	i := l.find(id)
	if i < 0 {
		return notFoundReply(6, "Subscription", id)
	}
	sub := l.recs[i].(*Subscription)
	if sub.State != StateActivated {
		return fail(errorf(6, TypeUnprocessable, "Subscription %s is %s, not activated, and cannot be paused.", sub.ID, sub.State))
	}
	sub.State = StatePaused
	l.reencode(i)
	return replyOK(l.enc[i])
}

// decodeBody reads a JSON object body of at most 1 MiB.
func decodeBody(r *http.Request, object int) (map[string]json.RawMessage, *apiError) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var m map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &m) != nil || m == nil {
		return nil, errorf(object, TypeBadModelState, "The request body must be a JSON object.")
	}
	return m, nil
}

func modelError(object int, fieldName, msg string) *apiError {
	e := errorf(object, TypeBadModelState, "%s", msg)
	e.detail = fieldName
	return e
}

// field finds a body field by name, ignoring case as the service's model
// binder does; nil when absent or null.
func field(m map[string]json.RawMessage, name string) json.RawMessage {
	for k, v := range m {
		if strings.EqualFold(k, name) && string(v) != "null" {
			return v
		}
	}
	return nil
}

func stringField(m map[string]json.RawMessage, name string) (string, bool) {
	var s string
	raw := field(m, name)
	return s, raw != nil && json.Unmarshal(raw, &s) == nil
}

func intField(m map[string]json.RawMessage, name string) (int64, bool) {
	n, err := strconv.ParseInt(string(field(m, name)), 10, 64)
	return n, err == nil
}
