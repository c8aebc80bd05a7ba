/* Tarmac parser internals shared by batch.c (state, grouping) and parse.c
 * (the line grammar). */
#ifndef TRAWL_TARMAC_INT_H
#define TRAWL_TARMAC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/tarmac.h"

#define TARMAC_MAX_WARNED 64
#define TARMAC_MAX_CPUS 256
#define TARMAC_REGCACHE 512
#define TARMAC_MAX_BAD_WARNINGS 20

/* One cached register-name lookup (names up to 15 characters). */
struct tarmac_regcache {
	uint8_t len;
	uint8_t state;
	char name[15];
	uint32_t reg;
	uint16_t offset, size, zext;
	uint8_t valid;
	uint8_t flexible;  /* size depends on the value's length */
};

struct trawl_tarmac {
	struct trawl_reader_options opt;
	char *file;

	/* the batch: completed events [0, nev), then the open one at nev */
	struct trawl_event *ev;
	size_t nev, ev_cap;
	int open;
	int taken;               /* batch handed out; compact before mutating */
	int open_detached;
	size_t open_pool;        /* pool offset where the open event's bytes start */
	struct trawl_reg_write *regs;
	size_t nregs, regs_cap;
	struct trawl_mem_access *mems;
	size_t nmems, mems_cap;
	uint8_t *pool;
	size_t pool_len, pool_cap;
	char *carry;
	size_t carry_cap;
	struct trawl_reg_names sysregs;

	/* state carried from line to line */
	uint64_t seq;
	uint64_t lineno;
	uint64_t time;
	uint16_t unit;
	uint16_t cpu;
	int no_fast;             /* tests: always take the general grammar */
	char fast_unit[4];       /* unit word of the last line, for the fast path */
	uint8_t fast_unit_len;
	uint16_t fast_unit_id;
	int prev_ldst;           /* previous line was LD (1) or ST (2) */
	size_t ldst_col;         /* column of the address on that line */
	uint8_t cpu_iset[TARMAC_MAX_CPUS];

	struct trawl_reader_stats stats;
	char *warned[TARMAC_MAX_WARNED];
	size_t nwarned;
	struct tarmac_regcache regcache[TARMAC_REGCACHE];

	/* the last error of parse.c: column (1-based) and message */
	uint32_t ecol;
	char emsg[160];
};

/* What the line prefix said. */
struct tarmac_line {
	const char *text;
	size_t len;
	uint64_t offset;
	uint64_t lineno;
	uint64_t time;
	uint16_t unit;
	uint16_t cpu;
	int has_time;
};

int tarmac_reserve_regs(struct trawl_tarmac *t, size_t n);
int tarmac_reserve_mems(struct trawl_tarmac *t, size_t n);
uint32_t tarmac_pool_alloc(struct trawl_tarmac *t, size_t n);
void tarmac_compact(struct trawl_tarmac *t);
struct trawl_event *tarmac_begin_event(struct trawl_tarmac *t, const struct tarmac_line *ln,
				       enum trawl_event_kind kind);
int tarmac_attach_effects(struct trawl_tarmac *t, const struct tarmac_line *ln, size_t r0,
			  size_t m0, size_t p0);
void tarmac_warn_type(struct trawl_tarmac *t, const struct tarmac_line *ln, const char *type,
		      size_t n);

#endif
