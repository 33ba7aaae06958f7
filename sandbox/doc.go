// Package sandbox is a faithful, in-memory fake of the subscription billing
// service of docs/service.md: every endpoint, header,
// rule, error and limit of the spec, served over real HTTP.
//
// Its data is generated deterministically from a seed (Generate): months of
// the billing cycle of docs/fields.md across every collection, with planted
// discrepancies, each crafted to trigger exactly one of reconciliation
// rules 1–14, and an AnswerKey that says what a correct export and
// reconciliation must give. Faults (ParseFaults) inject latency, server
// errors, rate limits, broken bodies and connections, and misbehaving pages
// (NextPage loops and foreign hosts, wrong TotalCounts, drift, oversize pages),
// and fields sent otherwise than docs/fields.md assumes (package variants).
//
// Tests start it with New and Start("127.0.0.1:0", …); billsnap's sandbox
// command serves it on a fixed address.
package sandbox
