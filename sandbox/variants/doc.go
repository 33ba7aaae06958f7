// Package variants is how the sandbox sends fields otherwise than
// docs/fields.md assumes, as an independent implementation of the service
// might: values in another JSON type with or without a lossless reading,
// fields renamed, one record's field set (Variants, from the fault spec's
// variants, untyped, rename and set keys), applied record by record
// (Variator), and the count of what was sent (Tally, FieldKey), the
// answer key of a client's field counts.
//
// It knows a list only by its table and IDs (List) and imports nothing
// of billsnap: the sandbox stands on it, never the other way.
package variants
