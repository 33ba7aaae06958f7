package extract

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Object codes and type codes of spec §7.
var (
	ObjectNames = map[int]string{1: "Transactions", 2: "Customer", 3: "Payment Method", 4: "Contact", 5: "Discount",
		6: "Subscription", 7: "SubscriptionCharge", 8: "Invoice", 9: "Product Plan", 11: "Unit of Measure",
		12: "Business Unit", 13: "Tax Rule"}
	TypeNames = map[int]string{1000: "Bad Request", 2000: "Bad Model State", 3000: "Bad Parameter",
		4000: "Entity Not Found", 5000: "Unprocessable Entity", 6000: "Already Exists",
		7000: "Authentication Failure", 8000: "OData"}
)

// TypeAuthFailure is the type code of an invalid or missing API key.
const TypeAuthFailure = 7000

// ParseErrorcode splits a composite Errorcode into its object code and its
// four-digit type code: 27000 is object 2 (Customer), type 7000. ok is false
// when the code is not a known type code after a non-negative object code.
func ParseErrorcode(code int) (object, typ int, ok bool) {
	if code < 1000 {
		return 0, 0, false
	}
	object, typ = code/10000, code%10000
	_, known := TypeNames[typ]
	return object, typ, known
}

// APIError is an error answer of the service, decoded.
type APIError struct {
	Status    int    // HTTP status
	Errorcode int    // composite code; 0 when the body had none
	Object    int    // object code of Errorcode
	Type      int    // type code of Errorcode
	Message   string // the service's Message, or a note about the body
	Helplink  string
}

// ObjectName and TypeName are the names spec §7 gives the codes.
func (e *APIError) ObjectName() string { return nameOr(ObjectNames, e.Object) }
func (e *APIError) TypeName() string   { return nameOr(TypeNames, e.Type) }

func nameOr(m map[int]string, k int) string {
	if n, ok := m[k]; ok {
		return n
	}
	return fmt.Sprintf("unknown (%d)", k)
}

// IsAuth reports an authentication failure (a …7000 code, or HTTP 401).
func (e *APIError) IsAuth() bool {
	return e.Type == TypeAuthFailure || (e.Errorcode == 0 && e.Status == 401)
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d", e.Status)
	if e.Errorcode != 0 {
		fmt.Fprintf(&b, ", Errorcode %d (%s, %s)", e.Errorcode, e.ObjectName(), e.TypeName())
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Helplink != "" {
		fmt.Fprintf(&b, " (help: %s)", e.Helplink)
	}
	return b.String()
}

// ListNotFoundError is a 404 answered for a list: the service has no list
// where the configuration sends billsnap, so base_url or front_url is
// wrong (a missing record is never a 404 of a list).
type ListNotFoundError struct {
	*APIError
	Under string // the URL the list is under: base_url or front_url
}

func (e *ListNotFoundError) Error() string {
	return e.APIError.Error() + ": the service has no such list: check base_url and front_url (this one is under " + e.Under + ")"
}

func (e *ListNotFoundError) Unwrap() error { return e.APIError }

// listNotFound is err as a *ListNotFoundError when it is a 404 answered
// for a list of coll; other errors are returned as they are.
func listNotFound(err error, coll Collection) error {
	api, ok := err.(*APIError)
	if !ok || api.Status != http.StatusNotFound {
		return err
	}
	under := "base_url"
	if coll.Front {
		under = "front_url"
	}
	return &ListNotFoundError{APIError: api, Under: under}
}

// decodeAPIError reads an error body of spec §7; a body that is not one is
// described by its content type and first bytes.
func decodeAPIError(status int, contentType string, body []byte) *APIError {
	e := &APIError{Status: status}
	var wire struct {
		Type           string
		Message        string
		Errorcode      int
		Httpstatuscode int
		Helplink       string
	}
	if json.Unmarshal(body, &wire) == nil && (wire.Errorcode != 0 || wire.Message != "") {
		e.Errorcode, e.Message, e.Helplink = wire.Errorcode, wire.Message, wire.Helplink
		e.Object, e.Type, _ = ParseErrorcode(wire.Errorcode)
		return e
	}
	e.Message = fmt.Sprintf("the body is not an error of the service (%s): %s", orNone(contentType), snippet(body))
	return e
}

func orNone(s string) string {
	if s == "" {
		return "no content type"
	}
	return s
}

// snippet is the start of a body, quoted, for an error message.
func snippet(b []byte) string {
	const n = 80
	s := strings.ToValidUTF8(string(b[:min(len(b), n)]), "?")
	if len(b) > n {
		s += "…"
	}
	return fmt.Sprintf("%q", s)
}
