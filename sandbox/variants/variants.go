package variants

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Variants says which fields the sandbox sends otherwise than
// docs/fields.md assumes, as an independent implementation of the service might. Only
// the fields the spec does not define vary: never an ID, a
// SubscriptionCharge, ProductPlan or ProductPlanCharge field, the key
// fields of a pricing (ProductPlanChargeID, CurrencyCode) or a nested
// list itself. Which values vary is decided by a hash of the seed, the
// record and the field, so a record is sent the same way every time.
//
// The fault spec keys (see sandbox.Faults):
//
//	variants=SHARE   each value with a lossless other form is sent in it
//	                 with this probability: a number as a string ("12.50"),
//	                 a boolean as "true"/"TRUE" or 1/0, a UTC date-time
//	                 with an offset, without one, or as a date alone when
//	                 it is midnight, a numeric string as a number
//	untyped=SHARE    this share of records has one field sent in a form
//	                 nothing reads without loss: "n/a" for a number,
//	                 "maybe" for a boolean, "soon" for a date-time, an
//	                 array for a string, an object for a null
//	rename=COLL.FIELD:NAME   the field is sent as NAME in every record
//	set=COLL.FIELD@N:JSON    record N of the list (from 1, as generated)
//	                 sends FIELD as JSON (no commas)
type Variants struct {
	Coercible, Untyped float64
	Renames            []Rename
	Sets               []Set
}

// Rename sends a field of a list's records under another name.
type Rename struct{ Collection, Field, As string }

// Set sends one record's field as given JSON.
type Set struct {
	Collection, Field string
	Record            int // position in the list as generated, from 1
	JSON              string
}

// FieldKey is what the sandbox sent of one field of an export table, as
// the answer key of a client's counts: values by JSON type (null,
// string, number, boolean, object, array), and how many of them it sent in
// a coercible or an untyped form.
type FieldKey struct {
	Types   map[string]int64
	Coerced int64
	Untyped int64
}

func (v *Variants) any() bool {
	return v != nil && (v.Coercible > 0 || v.Untyped > 0 || len(v.Renames) > 0 || len(v.Sets) > 0)
}

// ParseRename reads a rename=COLL.FIELD:NAME fault's value.
func ParseRename(s string) (Rename, error) {
	path, as, ok := strings.Cut(s, ":")
	coll, field, ok2 := strings.Cut(path, ".")
	if !ok || !ok2 || coll == "" || field == "" || as == "" {
		return Rename{}, fmt.Errorf("want COLL.FIELD:NAME")
	}
	return Rename{Collection: strings.ToLower(coll), Field: field, As: as}, nil
}

// ParseSet reads a set=COLL.FIELD@N:JSON fault's value.
func ParseSet(s string) (Set, error) {
	path, js, ok := strings.Cut(s, ":")
	path, at, ok2 := strings.Cut(path, "@")
	coll, field, ok3 := strings.Cut(path, ".")
	n, err := strconv.Atoi(at)
	if !ok || !ok2 || !ok3 || err != nil || n < 1 || !json.Valid([]byte(js)) {
		return Set{}, fmt.Errorf("want COLL.FIELD@N:JSON with N ≥ 1")
	}
	return Set{Collection: strings.ToLower(coll), Field: field, Record: n, JSON: js}, nil
}

// Variator applies Variants to the records of one sandbox.
type Variator struct {
	v      *Variants
	seed   uint64
	sets   map[string]map[string]string // by table, "record ID/field" -> JSON
	rename map[string]map[string]string // by table, field -> name sent
}

// contract tables are the spec's: they never vary.
var contractTables = map[string]bool{"subscription_charges": true, "product_plans": true, "product_plan_charges": true}

// nested are the nested lists, by the field that holds them.
var nested = map[string]string{"InvoiceLines": "invoice_lines", "ProductPlanCharges": "product_plan_charges",
	"ProductPlanChargePricings": "product_plan_charge_pricings"}

// List is what a Variator knows of a list: its export table, and its
// records' IDs in the order generated.
type List struct {
	Table string
	IDs   []string
}

// New is the Variator of v over lists (by lower-case list name), its
// rolls fixed by seed; nil when v varies nothing.
func New(v *Variants, seed uint64, lists map[string]List) *Variator {
	if !v.any() {
		return nil
	}
	x := &Variator{v: v, seed: seed, sets: map[string]map[string]string{}, rename: map[string]map[string]string{}}
	for _, r := range v.Renames {
		if l, ok := lists[r.Collection]; ok {
			if x.rename[l.Table] == nil {
				x.rename[l.Table] = map[string]string{}
			}
			x.rename[l.Table][r.Field] = r.As
		}
	}
	for _, s := range v.Sets {
		if l, ok := lists[s.Collection]; ok && s.Record <= len(l.IDs) {
			if x.sets[l.Table] == nil {
				x.sets[l.Table] = map[string]string{}
			}
			x.sets[l.Table][l.IDs[s.Record-1]+"/"+s.Field] = s.JSON
		}
	}
	return x
}

// Tally counts what a Variator sent, for a sandbox's FieldKeys; nil
// counts nothing.
type Tally map[string]map[string]*FieldKey

func (t Tally) value(table, field string, raw string, o outcome) {
	if t == nil {
		return
	}
	if t[table] == nil {
		t[table] = map[string]*FieldKey{}
	}
	k := t[table][field]
	if k == nil {
		k = &FieldKey{Types: map[string]int64{}}
		t[table][field] = k
	}
	k.Types[jsonTypeOf(raw)]++
	switch o {
	case sentCoercible:
		k.Coerced++
	case sentUntyped:
		k.Untyped++
	}
}

type outcome int

const (
	sentAsIs outcome = iota
	sentCoercible
	sentUntyped
)

// Record is the JSON of a record of table, varied; t counts what it sent.
func (x *Variator) Record(table string, b []byte, t Tally) []byte {
	if x == nil && t == nil {
		return b
	}
	return x.object(table, gjson.ParseBytes(b), t)
}

// object writes a record or nested item of table, field by field.
func (x *Variator) object(table string, obj gjson.Result, t Tally) []byte {
	id := keyOfItem(table, obj)
	untypedField := x.untypedField(table, id, obj)
	var out bytes.Buffer
	out.WriteByte('{')
	first := true
	obj.ForEach(func(k, val gjson.Result) bool {
		name, raw, o := k.Str, val.Raw, sentAsIs
		switch child := nested[name]; {
		case x != nil && x.sets[table][id+"/"+name] != "":
			raw = x.sets[table][id+"/"+name]
		case child != "" && val.IsArray():
			raw = x.array(child, val, t)
		case !variable(table, name):
		case name == untypedField:
			raw, o = uncoercible(val), sentUntyped
		case x != nil && x.roll(id, name) < x.v.Coercible:
			if alt, ok := coercible(val, x.roll(id, name+"/form")); ok {
				raw, o = alt, sentCoercible
			}
		}
		if x != nil && x.rename[table][name] != "" {
			name = x.rename[table][name]
		}
		t.value(table, name, raw, o)
		if !first {
			out.WriteByte(',')
		}
		first = false
		nb, _ := json.Marshal(name)
		out.Write(nb)
		out.WriteByte(':')
		out.WriteString(raw)
		return true
	})
	out.WriteByte('}')
	return out.Bytes()
}

// array writes a nested list of table's items.
func (x *Variator) array(table string, arr gjson.Result, t Tally) string {
	var out bytes.Buffer
	out.WriteByte('[')
	i := 0
	arr.ForEach(func(_, item gjson.Result) bool {
		if i > 0 {
			out.WriteByte(',')
		}
		i++
		if item.IsObject() {
			out.Write(x.object(table, item, t))
		} else {
			out.WriteString(item.Raw)
		}
		return true
	})
	out.WriteByte(']')
	return out.String()
}

// keyOfItem is the ID of a record or item; a pricing's key.
func keyOfItem(table string, obj gjson.Result) string {
	if table == "product_plan_charge_pricings" {
		return obj.Get("ProductPlanChargeID").Str + "/" + obj.Get("CurrencyCode").Str
	}
	return obj.Get("ID").Str
}

// unnamed are the fields docs/fields.md does not name: they have no type to
// send otherwise.
var unnamed = map[string]bool{"Culture": true, "BillingCycle": true}

// variable tells whether field of table may be sent otherwise.
func variable(table, field string) bool {
	switch {
	case contractTables[table] || field == "ID" || unnamed[field]:
		return false
	case table == "product_plan_charge_pricings":
		return field != "ProductPlanChargeID" && field != "CurrencyCode"
	}
	return nested[field] == ""
}

// untypedField is the field of the record sent untyped, or "".
func (x *Variator) untypedField(table, id string, obj gjson.Result) string {
	if x == nil || x.v.Untyped == 0 || x.roll(id, "untyped") >= x.v.Untyped {
		return ""
	}
	var fields []string
	obj.ForEach(func(k, _ gjson.Result) bool {
		if variable(table, k.Str) {
			fields = append(fields, k.Str)
		}
		return true
	})
	if len(fields) == 0 {
		return ""
	}
	return fields[int(x.roll(id, "which")*float64(len(fields)))]
}

// roll is a number in [0, 1) fixed by the seed, the record and what.
func (x *Variator) roll(id, what string) float64 {
	h := fnv.New64a()
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], x.seed)
	h.Write(seed[:])
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write([]byte(what))
	return float64(h.Sum64()>>11) / (1 << 53)
}

// coercible is another form of v that a reader can take back without
// loss; form in [0, 1) picks one where there are several.
func coercible(v gjson.Result, form float64) (string, bool) {
	switch v.Type {
	case gjson.Number:
		return strconv.Quote(v.Raw), true
	case gjson.True, gjson.False:
		forms := []string{`"` + v.Raw + `"`, `"` + strings.ToUpper(v.Raw) + `"`, map[bool]string{true: "1", false: "0"}[v.Type == gjson.True]}
		return forms[int(form*float64(len(forms)))], true
	case gjson.String:
		if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil && strings.HasSuffix(v.Str, "Z") {
			return strconv.Quote(timeForm(t, form)), true
		}
		if numeric(v.Str) {
			return v.Str, true
		}
	}
	return "", false
}

// timeForm writes t, a UTC time, in another ISO 8601 form.
func timeForm(t time.Time, form float64) string {
	forms := []string{
		t.In(time.FixedZone("", 2*3600)).Format(time.RFC3339Nano),
		t.In(time.FixedZone("", -(5*3600 + 1800))).Format(time.RFC3339Nano),
		t.Format("2006-01-02T15:04:05.999999999") + "+00:00",
		t.Format("2006-01-02T15:04:05.999999999"),
	}
	if t.Equal(t.Truncate(24 * time.Hour)) {
		forms = append(forms, t.Format("2006-01-02"))
	}
	return forms[int(form*float64(len(forms)))]
}

// numeric tells whether s is a whole number written as JSON writes it
// (no sign, no leading zero), so that as a number it reads back the same.
func numeric(s string) bool {
	if s == "" || len(s) > 15 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// uncoercible is a form of v that no reader can take without loss.
func uncoercible(v gjson.Result) string {
	switch {
	case v.Type == gjson.Number:
		return `"n/a"`
	case v.Type == gjson.True || v.Type == gjson.False:
		return `"maybe"`
	case v.Type == gjson.Null:
		return `{"Value":null}`
	case v.Type == gjson.String && isTime(v.Str):
		return `"soon"`
	}
	return "[" + v.Raw + "]"
}

func isTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// jsonTypeOf names raw's JSON type as a client counts it.
func jsonTypeOf(raw string) string {
	switch raw[0] {
	case 'n':
		return "null"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "number"
}

// Keys are the counts of t, by table and field as sent.
func (t Tally) Keys() map[string]map[string]FieldKey {
	out := map[string]map[string]FieldKey{}
	for table, fields := range t {
		out[table] = map[string]FieldKey{}
		for f, k := range fields {
			out[table][f] = *k
		}
	}
	return out
}
