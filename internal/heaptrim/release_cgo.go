//go:build linux && cgo

package heaptrim

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
// heaptrim_arenas caps glibc's malloc arenas at HEAPTRIM_ARENAS when the
// environment does not set MALLOC_ARENA_MAX, as the program loads: glibc
// fixes the cap the first time a thread needs an arena, and the Go
// runtime's threads need one before any Go init runs.
#define HEAPTRIM_ARENAS 2
__attribute__((constructor)) static void heaptrim_arenas(void) {
	if (getenv("MALLOC_ARENA_MAX") == NULL) mallopt(M_ARENA_MAX, HEAPTRIM_ARENAS);
}

// heaptrim_heaps counts the arenas malloc_info reports (<heap nr=...>).
static int heaptrim_heaps(void) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL) return -1;
	malloc_info(0, f);
	fclose(f);
	int n = 0;
	for (char *p = buf; (p = strstr(p, "<heap nr=")) != NULL; p++) n++;
	free(buf);
	return n;
}
*/
import "C"

// Arenas is the most malloc arenas the C heap uses, set as the program
// loads: DuckDB's threads each take an arena of their own by default (up
// to eight a core), and memory freed in one arena serves only that one,
// so more arenas hold more freed memory (docs/benchmarks.md).
// MALLOC_ARENA_MAX in the environment, glibc's own setting, overrides it.
const Arenas = C.HEAPTRIM_ARENAS

// Heaps is how many malloc arenas the C heap has made so far.
func Heaps() int { return int(C.heaptrim_heaps()) }

// Release gives the free pages of every malloc arena back to the kernel:
// glibc's malloc_trim(0), which the rest of the program no longer reaches.
// It reports whether any memory was given back.
func Release() bool { return C.heaptrim_release() != 0 }

// Skipped is how many trims the program asked for and did not get: each a
// call of malloc_trim, from DuckDB as an instance closes or frees memory.
func Skipped() int64 { return int64(C.heaptrim_skipped_count()) }
