/* The timeline of an instruction trace: per core, the activations of the
 * call tree (calls.h) by depth, each depth a sorted array of
 * [first line, last line] intervals, so that a view of any line range at
 * any width is answered by binary searches, at most one item per depth and
 * pixel column (docs/serve.md, "Timeline"). */
#ifndef TRAWL_SERVE_TIMELINE_H
#define TRAWL_SERVE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trawl/calls.h"
#include "trawl/json.h"

struct tl_act {
	uint64_t first, last;       /* lines */
	uint32_t name;              /* index into the name table */
	uint32_t kind;              /* enum trawl_frame_kind */
};

struct tl_level {
	struct tl_act *a;
	size_t n, cap;
};

struct tl_core {
	unsigned cpu;
	struct tl_level *levels;
	unsigned nlevels, levels_cap;
	uint64_t *marks;            /* first lines of exception entries, sorted */
	size_t nmarks, marks_cap;
};

struct serve_timeline {
	struct tl_core *cores;
	unsigned ncores;
	char **names;               /* distinct function names */
	uint32_t nnames, names_cap;
	uint32_t *hash;             /* open addressing: name index + 1, 0 empty */
	uint32_t hash_cap;
	uint64_t activations;
	/* the calls= marks last asked for: first lines of the activations of
	 * one function, per core (cores[i]), sorted */
	char *calls_name;
	uint64_t **calls;
	size_t *ncalls;
};

/* Copy what the view needs out of a finished call tree (which the caller
 * may then destroy). Returns 0 or -1 (out of memory). */
int serve_timeline_build(struct serve_timeline *t, const struct trawl_calls *c);
void serve_timeline_release(struct serve_timeline *t);

/* Find the calls of function `name` (its activations, named as
 * serve_timeline_find matches them) for serve_timeline_write's "calls";
 * kept until another name is asked for. Returns -1 when out of memory. */
int serve_timeline_mark(struct serve_timeline *t, const char *name);

/* A view of lines [from, to) in cols columns: the items (at most max; the
 * shallowest depths first), the exception marks and, with calls, the
 * marks of the function serve_timeline_mark found, as the members
 * "cores", "items", "marks", "calls" and "truncated" of the open JSON
 * object j. */
void serve_timeline_write(const struct serve_timeline *t, uint64_t from, uint64_t to,
			  uint64_t cols, uint64_t max, int calls, struct trawl_json *j);

/* First activation named `name` (exactly, or its part before "+0x") that
 * starts at or after line `after`, on any core: its first line, or 0. */
uint64_t serve_timeline_find(const struct serve_timeline *t, const char *name, uint64_t after);

#endif
