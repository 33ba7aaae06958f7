package sandbox

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// reply is what an endpoint answers: a status and JSON body, or an error.
type reply struct {
	status int
	body   []byte
	err    *apiError
}

func replyOK(body []byte) reply { return reply{status: http.StatusOK, body: body} }
func fail(e *apiError) reply    { return reply{err: e} }
func created(body []byte) reply { return reply{status: http.StatusCreated, body: body} }
func (r reply) failed() bool    { return r.err != nil }
func notFoundReply(object int, what, id string) reply {
	return fail(errorf(object, TypeNotFound, "%s with ID %s was not found.", what, id))
}

// endpoint describes one route: its object code, method, and whether it is
// on front_url (which requires x-version: nxt).
type endpoint struct {
	object int
	method string
	front  bool
	handle func(r *http.Request) reply
}

// Handler serves the service: /v3/… of base_url, the paged lists of
// front_url, and the help pages of the Helplinks.
func (s *Sandbox) Handler() http.Handler {
	mux := http.NewServeMux()
	v3 := map[string]endpoint{
		"/v3/productplans/query":                               {9, http.MethodGet, false, s.queryPlans},
		"/v3/subscriptioncharges/query":                        {7, http.MethodGet, false, s.queryCharges},
		"/v3/subscriptioncharges/{ref}/setamountbyreferenceid": {7, http.MethodPut, false, s.setAmount},
		"/v3/customers":                                        {2, http.MethodPost, false, s.createCustomer},
		"/v3/invoices/{id}/markpaid/{$}":                       {8, http.MethodPut, false, s.markPaid},
		"/v3/invoices/{id}/markpaid":                           {8, http.MethodPut, false, s.markPaid},
		"/v3/subscriptions/{id}/pause":                         {6, http.MethodPut, false, s.pause},
	}
	for pattern, e := range v3 {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, e) })
	}
	mux.HandleFunc("/{list}/{$}", s.frontList)
	mux.HandleFunc("/{list}", s.frontList)
	mux.HandleFunc("/help/{code}/", s.help)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.refuse(w, r, errorf(0, TypeNotFound, "No resource at %s.", r.URL.Path))
	})
	return mux
}

func (s *Sandbox) frontList(w http.ResponseWriter, r *http.Request) {
	l := s.lists[strings.ToLower(r.PathValue("list"))]
	if l == nil {
		s.requests.Add(1)
		s.refuse(w, r, errorf(0, TypeNotFound, "No resource at %s.", r.URL.Path))
		return
	}
	s.serve(w, r, endpoint{l.object, http.MethodGet, true, func(r *http.Request) reply { return s.listPage(r, l, nil) }})
}

// serve runs the checks every request passes (method, faults, auth,
// x-version) and then the endpoint.
func (s *Sandbox) serve(w http.ResponseWriter, r *http.Request, e endpoint) {
	s.requests.Add(1)
	if r.Method != e.method {
		w.Header().Set("Allow", e.method)
		err := errorf(e.object, TypeBadRequest, "The method %s is not allowed here; use %s.", r.Method, e.method)
		err.status = http.StatusMethodNotAllowed
		s.refuse(w, r, err)
		return
	}
	truncate := false
	if r.Method == http.MethodGet {
		var done bool
		if truncate, done = s.injectFault(w, r, e.object); done {
			return
		}
	}
	if err := s.authorize(r, e); err != nil {
		s.refuse(w, r, err)
		return
	}
	rep := e.handle(r)
	if rep.failed() {
		s.refuse(w, r, rep.err)
		return
	}
	if truncate {
		writeTruncated(w, rep)
		return
	}
	writeJSON(w, rep.status, rep.body)
}

// authorize checks the Bearer key and, on front_url, the x-version header.
func (s *Sandbox) authorize(r *http.Request, e endpoint) *apiError {
	want := "Bearer " + base64.StdEncoding.EncodeToString([]byte(s.key))
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(want)) != 1 {
		return errorf(e.object, TypeAuthFailure, "Authentication failed: the API key is missing or invalid.")
	}
	if e.front && r.Header.Get("x-version") != "nxt" {
		return errorf(e.object, TypeBadRequest, "The x-version header must be nxt on the paged list interface.")
	}
	return nil
}

// injectFault sleeps for the configured latency and then rolls for one
// fault. done says a fault answered the request; truncate says the body
// must be cut short.
func (s *Sandbox) injectFault(w http.ResponseWriter, r *http.Request, object int) (truncate, done bool) {
	f := s.faults
	if d := f.Latency + time.Duration(s.roll()*float64(f.Jitter)); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return false, true
		}
	}
	u := s.roll()
	for _, c := range []struct {
		rate float64
		act  func()
	}{
		{f.Reset, func() { resetConn(w) }},
		{f.Err500, func() {
			e := errorf(object, TypeBadRequest, "An internal error occurred.")
			e.status = http.StatusInternalServerError
			writeError(w, r, e)
		}},
		{f.Err502, func() { writeHTML(w, http.StatusBadGateway, "502 Bad Gateway") }},
		{f.Err503, func() { writeHTML(w, http.StatusServiceUnavailable, "503 Service Temporarily Unavailable") }},
		{f.TooMany, func() {
			w.Header().Set("Retry-After", strconv.Itoa(int(f.RetryAfter.Round(time.Second)/time.Second)))
			e := errorf(object, TypeBadRequest, "Too many requests; retry after the time in Retry-After.")
			e.status = http.StatusTooManyRequests
			writeError(w, r, e)
		}},
		{f.HTML, func() { writeHTML(w, http.StatusOK, "Please sign in") }},
		{f.Echo, func() {
			writeError(w, r, errorf(object, TypeBadRequest, "Request rejected by the gateway: Authorization: %s", r.Header.Get("Authorization")))
		}},
	} {
		if u < c.rate {
			c.act()
			return false, true
		}
		u -= c.rate
	}
	return u < f.Truncate, false
}

func writeHTML(w http.ResponseWriter, status int, title string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><title>%s</title></head><body><h1>%s</h1></body></html>\n", title, title)
}

// writeTruncated declares the whole body but sends only its first half; the
// server then closes the connection, and the client reads an unexpected EOF.
func writeTruncated(w http.ResponseWriter, rep reply) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(rep.body)))
	w.WriteHeader(rep.status)
	w.Write(rep.body[:len(rep.body)/2])
}

// resetConn closes the connection with a TCP reset instead of a response.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// help serves the page a Helplink points at.
func (s *Sandbox) help(w http.ResponseWriter, r *http.Request) {
	code, err := strconv.Atoi(r.PathValue("code"))
	obj, typ := code/10000, code%10000
	if err != nil || objectNames[obj] == "" || typeNames[typ] == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "Errorcode %d: %s, %s (type %d, HTTP %d).\n", code, objectNames[obj], typeNames[typ], typ, typeStatus[typ])
}

// objectNames and typeNames are the tables of spec §7.
var objectNames = map[int]string{1: "Transactions", 2: "Customer", 3: "Payment Method", 4: "Contact", 5: "Discount",
	6: "Subscription", 7: "SubscriptionCharge", 8: "Invoice", 9: "Product Plan", 11: "Unit of Measure",
	12: "Business Unit", 13: "Tax Rule"}

var typeNames = map[int]string{1000: "Bad Request", 2000: "Bad Model State", 3000: "Bad Parameter",
	4000: "Entity Not Found", 5000: "Unprocessable Entity", 6000: "Already Exists",
	7000: "Authentication Failure", 8000: "OData"}
