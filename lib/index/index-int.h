/* Internal view of an open index file, shared by open.c and query.c. */
#ifndef TRAWL_INDEX_INT_H
#define TRAWL_INDEX_INT_H

#include <stdint.h>

#include "index/format.h"
#include "trawl/index.h"

struct trawl_index;

struct idx_sec {
	const struct trawl_index *ix;   /* for checked access (check.c) */
	const uint8_t *p;
	uint64_t len;
	uint64_t n;             /* records (len / rec), or len for byte sections */
	uint32_t rec;
	uint64_t sum;
	const uint8_t *fence;   /* keys of every IDX_FENCE-th record, or NULL */
	uint64_t nfence;
	uint32_t id;            /* enum idx_section */
	uint64_t key2;          /* mask of the second sort key in a record's
				   second u64 (REGW shares it with byte ranges) */
	/* compact kind: len and n are those of the decoded section; its
	 * compressed bytes are [zoff, zoff + zlen) of the file, its blocks
	 * SEC_ZBLOCKS records [zfirst, zfirst + znb), each zbb bytes decoded */
	int z;
	uint64_t zoff, zlen, zfirst, znb;
	uint32_t zbb;
};

struct trawl_index {
	char *path;
	int fd;                 /* kept open: point queries read with pread */
	uint8_t *map;
	size_t size;
	struct idx_sec sec[SEC_COUNT_ + 1];
	uint64_t nev, last_line, nckpt;
	uint32_t K, ncpu, time_unit;
	uint64_t build_ns, created;
	struct trawl_trace_id id;
	char **sysnames;
	uint32_t nsys;
	uint64_t first_ev[3], last_ev[3]; /* line, offset, time of the first/last event */
	struct idx_checks *chk;
	uint32_t kind, flags;   /* header: enum trawl_index_kind, IDX_FLAG_* */
	struct idx_zcache *zc;  /* compact kind: decoded blocks (zcache.c) */
	int unknown_key;        /* IDENTITY has a meaning key we do not know */
	int has_time_back;      /* IDENTITY says where times went backwards */
	uint64_t time_back;     /* how many times they did */
	const uint8_t *time_back_ev; /* the first min(time_back, ID_TIME_BACK_MAX)
				      * event numbers, u64 each, in the mapping */
};

/* Block checksums (check.c): which blocks were verified in this process,
 * and the first damage met (sticky: every later query fails too). */
struct idx_checks {
	uint64_t covered;       /* bytes [IDX_HEADER_SIZE, covered) have block sums */
	uint64_t nblocks;
	const uint8_t *sums;    /* mapped SUMS section (read with pread) */
	uint64_t ntop;          /* SUMS_TOP entries (checked by verify) */
	uint64_t *ok;           /* verified data blocks, one bit each */
	int damaged;
	uint64_t bad_off;
};

/* Check the checksum tables' place and size; set up the bitmap. */
enum trawl_status idx_checks_open(struct trawl_index *ix, struct trawl_error *err);
void idx_checks_close(struct trawl_index *ix);
/* Check the blocks of mapped bytes [p, p+len): 1 when they are good; else
 * 0, and the handle is marked damaged. */
int idx_touch(const struct trawl_index *ix, const void *p, uint64_t len);
/* pread of file bytes [off, off+len) into buf, the blocks checked. */
enum trawl_status idx_pread(const struct trawl_index *ix, uint64_t off, void *buf, size_t len,
			    struct trawl_error *err);
/* st, or TRAWL_ERR_CORRUPT when the handle met damage. */
enum trawl_status idx_result(const struct trawl_index *ix, enum trawl_status st,
			     struct trawl_error *err);
/* Check every block (trawl_index_verify), a window at a time. */
enum trawl_status idx_checks_all(const struct trawl_index *ix, struct trawl_error *err);
#define IDX_VERIFY_WINDOW ((uint64_t)16 << 20)
/* Drop the whole pages of [p, p + len) of the mapping from the process. */
void idx_map_release(const struct trawl_index *ix, const uint8_t *p, uint64_t len);


/* A builder created without a path built in memory: after a successful
 * finish, the memfd holding the index (the caller closes it). build.c */
struct trawl_index_builder;
int idx_builder_take_memfd(struct trawl_index_builder *b);

/* Mark the handle damaged (check.c): every later query fails. */
void idx_mark_damaged(const struct trawl_index *ix, uint64_t off);

/* Compact kind (zcache.c): check the block table and fill in the
 * compressed sections; then decoded blocks, a few per section, kept. A
 * block that fails its checksum or does not decode marks the handle
 * damaged. */
enum trawl_status idx_zcache_open(struct trawl_index *ix, struct trawl_error *err);
void idx_zcache_close(struct trawl_index *ix);
/* Record i of a compressed section (a zero record after damage). */
const uint8_t *idx_z_rec(const struct idx_sec *s, uint64_t i);
/* Decoded bytes [off, off + len) of a compressed section, contiguous
 * (valid until the next call for that section); NULL after damage. */
const uint8_t *idx_z_span(const struct idx_sec *s, uint64_t off, uint64_t len);
/* Bytes [off, off + len) of section sid into buf, whatever the kind. */
enum trawl_status idx_sec_read(const struct trawl_index *ix, uint32_t sid, uint64_t off,
			       void *buf, size_t len, struct trawl_error *err);

/* Position of the first record whose (first u64, second u64) is >= (a, b)
 * in a section sorted that way. */
uint64_t idx_lower_bound2(const struct idx_sec *s, uint64_t a, uint64_t b);

#endif
