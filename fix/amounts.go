package fix

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Amount is a quantity a person chose for a reference.
type Amount struct {
	ReferenceID string
	Quantity    int64
}

// AmountError is a line of the amounts file, or a reference, that cannot
// make an action.
type AmountError struct {
	File      string
	Line      int
	Reference string
	Msg       string
}

func (e *AmountError) Error() string {
	switch {
	case e.File != "":
		return fmt.Sprintf("--amounts %s line %d: %s", e.File, e.Line, e.Msg)
	default:
		return fmt.Sprintf("--amounts: reference %s: %s", e.Reference, e.Msg)
	}
}

var guidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ReadAmounts reads a CSV of reference_id,amount with that header: a GUID
// and a whole quantity of 0 or more (§4.3 takes an integer), each
// reference once.
func ReadAmounts(path string) ([]Amount, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--amounts: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 2
	r.TrimLeadingSpace = true
	bad := func(line int, format string, args ...any) error {
		return &AmountError{File: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var out []Amount
	seen := map[string]bool{}
	for n := 1; ; n++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bad(n, "%v", err)
		}
		if n == 1 {
			if strings.ToLower(rec[0]) != "reference_id" || strings.ToLower(rec[1]) != "amount" {
				return nil, bad(n, "want the header reference_id,amount, not %s", strings.Join(rec, ","))
			}
			continue
		}
		ref := strings.ToLower(strings.TrimSpace(rec[0]))
		if !guidRE.MatchString(ref) {
			return nil, bad(n, "reference_id %q is not a GUID", rec[0])
		}
		q, err := strconv.ParseInt(strings.TrimSpace(rec[1]), 10, 64)
		if err != nil || q < 0 {
			return nil, bad(n, "amount %q: want a whole number of 0 or more", rec[1])
		}
		if seen[ref] {
			return nil, bad(n, "reference %s is given twice", ref)
		}
		seen[ref] = true
		out = append(out, Amount{ReferenceID: ref, Quantity: q})
	}
	return out, nil
}
