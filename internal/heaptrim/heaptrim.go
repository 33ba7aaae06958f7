// Package heaptrim decides when billsnap gives the C heap back to the
// kernel: not each time a DuckDB database closes, as DuckDB would, but when
// billsnap is idle.
//
// DuckDB calls glibc's malloc_trim(0) as every database instance closes.
// That walks every malloc arena and unmaps each free page; in a process with
// several threads each unmap makes every CPU flush its TLB. billsnap opens
// many short-lived instances (every section of its state, the staging file,
// the read model, reconciliation's in-memory database), so the trims cost
// more than the work around them. Linked into the program (on Linux with
// cgo), this package replaces malloc_trim with one that does nothing:
// memory freed by DuckDB's C++ code stays in malloc's arenas for the next
// instance to reuse, and large allocations (DuckDB's buffers, which go
// through jemalloc, and glibc's mmap-sized blocks) are returned as before.
// Release trims for real, for a process that stays up between runs.
//
// It also caps glibc's malloc arenas at Arenas as the program loads
// (unless MALLOC_ARENA_MAX says otherwise): each of DuckDB's threads
// would take an arena of its own, each keeping what was freed in it.
//
// Package snapshot links it into every program that opens a store; the
// scheduler calls Release after each run.
package heaptrim
