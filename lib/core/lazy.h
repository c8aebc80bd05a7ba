/* Heavy shared libraries (Unicorn, Capstone) loaded at their first use with
 * dlopen, not at process start: loading and relocating them took 3-4 ms
 * of every trawl run, a query that needs neither included. The build
 * records where the library was found (TRAWL_<NAME>_PATH); the soname is
 * the fallback. Callers are single-threaded (the emulator, the ETE
 * decoder), so no lock guards the first load. */
#ifndef TRAWL_CORE_LAZY_H
#define TRAWL_CORE_LAZY_H

#include "trawl/status.h"

struct lazy_lib {
	const char *label;        /* for messages: "Unicorn" */
	const char *path;         /* absolute path found at build time, or NULL */
	const char *soname;       /* tried when path fails */
	const char *const *names; /* symbols to resolve, NULL-ended */
	void **slots;             /* one per name, filled on success */
	int state;                /* 0 not tried, 1 loaded, -1 failed */
	void *handle;             /* dlopen's handle once loaded, for dlsym of
	                           * symbols not every version has */
	char why[200];            /* dlerror() of the failure */
};

/* Load l once; later calls return the first outcome at once. */
enum trawl_status lazy_lib_load(struct lazy_lib *l, struct trawl_error *err);

#endif
