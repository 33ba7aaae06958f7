package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Type codes of spec §7.
const (
	TypeBadRequest    = 1000
	TypeBadModelState = 2000
	TypeBadParameter  = 3000
	TypeNotFound      = 4000
	TypeUnprocessable = 5000
	TypeAlreadyExists = 6000
	TypeAuthFailure   = 7000
	TypeOData         = 8000
)

// typeStatus is the HTTP status the sandbox sends for each type code. The
// spec fixes 2000 → 400 and 5000 → 422; the others are the sandbox's choice
// (docs/sandbox.md, "Sandbox error statuses").
var typeStatus = map[int]int{
	TypeBadRequest:    http.StatusBadRequest,
	TypeBadModelState: http.StatusBadRequest,
	TypeBadParameter:  http.StatusBadRequest,
	TypeNotFound:      http.StatusNotFound,
	TypeUnprocessable: http.StatusUnprocessableEntity,
	TypeAlreadyExists: http.StatusConflict,
	TypeAuthFailure:   http.StatusUnauthorized,
	TypeOData:         http.StatusBadRequest,
}

// ErrorBody is the error body of spec §7.
type ErrorBody struct {
	Type           string
	Message        string
	Errorcode      int
	Httpstatuscode int
	Helplink       string
}

// apiError is an error response about to be sent. status 0 means the type
// code's status from typeStatus.
type apiError struct {
	object, typ int
	status      int
	message     string
	detail      string // optional last segment of the Helplink
}

func errorf(object, typ int, format string, args ...any) *apiError {
	return &apiError{object: object, typ: typ, message: fmt.Sprintf(format, args...)}
}

// code is the composite Errorcode: object code followed by the type code.
func (e *apiError) code() int { return e.object*10000 + e.typ }

func (e *apiError) httpStatus() int {
	if e.status != 0 {
		return e.status
	}
	return typeStatus[e.typ]
}

// writeError sends e as the error body of spec §7.
func writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	link := helpURL(r) + "/" + strconv.Itoa(e.code()) + "/"
	if e.detail != "" {
		link += e.detail + "/"
	}
	body, _ := json.Marshal(ErrorBody{Type: "request_error", Message: e.message, Errorcode: e.code(),
		Httpstatuscode: e.httpStatus(), Helplink: link})
	writeJSON(w, e.httpStatus(), body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// origin is the scheme and host the request was addressed to.
func origin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// helpURL is {help_url}: the sandbox serves its help pages itself.
func helpURL(r *http.Request) string { return origin(r) + "/help" }
