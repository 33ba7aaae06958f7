// Package crashpoint marks the moments at which crash tests kill billsnap,
// make its disk fail or make it panic. In an ordinary build Hit and Err do
// nothing (Err returns nil); in a binary built with the tag crashpoints,
// variables of the environment arm them:
//
//	BILLSNAP_CRASH_AT=name[#n]  the n-th Hit(name) (default the first) kills
//	                            the process with SIGKILL, as a power cut or
//	                            the OOM killer would
//	BILLSNAP_FAIL_AT=name[#n]   the n-th Err(name) and every later one return
//	                            an error wrapping syscall.ENOSPC: the disk is
//	                            full from then on
//	BILLSNAP_PANIC_AT=name[#n]  the n-th Hit(name) panics
//	BILLSNAP_CRASH_TRACE=file   every Hit appends its name to file, a line,
//	                            before anything else: how far a process got
//	                            when it was killed from outside
//
// The names are the moments listed in names.
package crashpoint

// names are the moments the code marks, in the order an export meets them.
var names = []string{
	"walk.page",        // a page is about to go to its sink
	"parquet.write",    // (Err) bytes go to a staged Parquet file
	"parquet.flush",    // rows were encoded into a staged Parquet file
	"parquet.file",     // a staged Parquet file was finished and synced
	"load.insert",      // a table's rows were inserted into DuckDB, not yet counted
	"load.checkpoint",  // DuckDB checkpointed while walks go on
	"publish.verified", // every count agrees; nothing recorded yet
	"publish.manifest", // the manifest is committed with status publishing
	"tree.add",         // (Hit and Err) a table's partition was renamed into the Parquet tree
	"history.packed",   // history's older steps are packed and the packs listed in the state, not yet committed
	"publish.complete", // the snapshot is recorded complete; staging is left
	"model.built",      // the next read model is built, beside what it holds (model.next.duckdb.json)
	"state.written",    // a section of the state committed (renamed over it)
	"records.shown",    // the records show the section's changes
	"model.copied",     // the next read model is durable, not yet renamed over the public file
	"model.public",     // the next read model is renamed over the public file; model.json not yet
	"publish.done",     // staging removed
	"prune.committed",  // pruned snapshots are gone from the state and the records, not yet from Parquet
	"close",            // everything done, DuckDB not yet closed
	"fix.sending",      // (fix apply) a write is on record as sending, not yet sent
	"lake.data",        // (parquet.url) a data file is in object storage; the manifest is not
	"lake.manifest",    // (parquet.url) the manifest is in object storage; latest is not moved yet
	"iceberg.table",    // (parquet.url) one more Iceberg table holds the snapshot; the others not yet
}
