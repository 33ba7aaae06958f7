//go:build linux && cgo

package heaptrim

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

static long heaptrim_skipped;

// The program's own definition of malloc_trim comes before the C
// library's in symbol resolution, so DuckDB's calls land here.
int malloc_trim(size_t pad) {
	(void)pad;
	__atomic_add_fetch(&heaptrim_skipped, 1, __ATOMIC_RELAXED);
	return 0;
}

static long heaptrim_skipped_count(void) {
	return __atomic_load_n(&heaptrim_skipped, __ATOMIC_RELAXED);
}

// heaptrim_release calls the C library's malloc_trim: the next definition
// after the program's own.
static int heaptrim_release(void) {
	int (*trim)(size_t) = (int (*)(size_t))dlsym(RTLD_NEXT, "malloc_trim");
	return trim != NULL ? trim(0) : 0;
}
*/
import "C"

// Release gives the free pages of every malloc arena back to the kernel:
// glibc's malloc_trim(0), which the rest of the program no longer reaches.
// It reports whether any memory was given back.
func Release() bool { return C.heaptrim_release() != 0 }

// Skipped is how many trims the program asked for and did not get: each a
// call of malloc_trim, from DuckDB as an instance closes or frees memory.
func Skipped() int64 { return int64(C.heaptrim_skipped_count()) }
