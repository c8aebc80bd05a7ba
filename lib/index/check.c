/* Block checksums of an index file. Every byte a query reads lies in a
 * 1 KiB block whose checksum (SUMS) is checked the first time the block is
 * read in a process and then remembered in a bitmap, so damage gives an
 * error instead of a wrong answer (see sum_of on why the table of sums
 * needs no check of its own there). Damage is sticky: once a handle met
 * it, every later query on it fails too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include "index/index-int.h"

/* Seeded with the block number: a block moved elsewhere does not match. */
uint32_t idx_block_sum(const uint8_t *p, size_t n, uint64_t blk)
{
	return (uint32_t)XXH3_64bits_withSeed(p, n, blk);
}

uint64_t idx_top_sum(const uint8_t *p, size_t n, uint64_t piece)
{
	return XXH3_64bits_withSeed(p, n, ~piece);
}

static int bit_get(const uint64_t *b, uint64_t i)
{
	return (int)((__atomic_load_n(&b[i / 64], __ATOMIC_RELAXED) >> (i % 64)) & 1);
}

static void bit_set(uint64_t *b, uint64_t i)
{
	__atomic_fetch_or(&b[i / 64], (uint64_t)1 << (i % 64), __ATOMIC_RELAXED);
}

void idx_mark_damaged(const struct trawl_index *ix, uint64_t off)
{
	struct idx_checks *c = ix->chk;
	if (!__atomic_exchange_n(&c->damaged, 1, __ATOMIC_RELAXED))
		c->bad_off = off;
}

/* File bytes of data block b: [lo, hi). */
static void block_span(const struct idx_checks *c, uint64_t b, uint64_t *lo, uint64_t *hi)
{
	*lo = b << IDX_BLOCK_LOG;
	if (*lo < IDX_HEADER_SIZE)
		*lo = IDX_HEADER_SIZE;
	*hi = (b + 1) << IDX_BLOCK_LOG;
	if (*hi > c->covered)
		*hi = c->covered;
}

static enum trawl_status read_raw(const struct trawl_index *ix, uint64_t off, void *buf,
				  size_t len, struct trawl_error *err);

/* The recorded sum of block b: a 4-byte pread (a first touch of a mapped
 * page costs several preads here). The entry itself needs no check of its
 * own: it is only ever compared with the block, so a damaged entry makes
 * that comparison fail (the file is damaged: rebuilt) and can never make a
 * damaged block pass, except by matching its new checksum by chance.
 * SUMS_TOP checks the whole table in trawl_index_verify. */
static int sum_of(const struct trawl_index *ix, uint64_t b, uint32_t *out)
{
	struct idx_checks *c = ix->chk;
	uint8_t v[4];
	uint64_t off = (uint64_t)(c->sums - ix->map) + 4 * b;
	if (read_raw(ix, off, v, 4, NULL)) {
		idx_mark_damaged(ix, off);
		return 0;
	}
	*out = ld32(v);
	return 1;
}

/* want: the recorded sum when the caller read it already, else NULL. */
static int check_block_sum(const struct trawl_index *ix, uint64_t b, const uint8_t *p, size_t n,
			   const uint8_t *want_le)
{
	uint32_t want;
	if (want_le)
		want = ld32(want_le);
	else if (!sum_of(ix, b, &want))
		return 0;
	if (idx_block_sum(p, n, b) != want) {
		idx_mark_damaged(ix, b << IDX_BLOCK_LOG);
		return 0;
	}
	bit_set(ix->chk->ok, b);
	return 1;
}

static int check_block(const struct trawl_index *ix, uint64_t b, const uint8_t *p, size_t n)
{
	return check_block_sum(ix, b, p, n, NULL);
}

static int in_covered(const struct idx_checks *c, uint64_t off, uint64_t len)
{
	return off >= IDX_HEADER_SIZE && off <= c->covered && len <= c->covered - off;
}

int idx_touch(const struct trawl_index *ix, const void *p, uint64_t len)
{
	struct idx_checks *c = ix->chk;
	if (c->damaged)
		return 0;
	if (!len)
		return 1;
	uint64_t off = (uint64_t)((const uint8_t *)p - ix->map);
	if (!in_covered(c, off, len)) {
		idx_mark_damaged(ix, off);
		return 0;
	}
	for (uint64_t b = off >> IDX_BLOCK_LOG, e = (off + len - 1) >> IDX_BLOCK_LOG; b <= e; b++) {
		if (bit_get(c->ok, b))
			continue;
		uint64_t lo, hi;
		block_span(c, b, &lo, &hi);
		if (!check_block(ix, b, ix->map + lo, (size_t)(hi - lo)))
			return 0;
	}
	return 1;
}

static enum trawl_status read_raw(const struct trawl_index *ix, uint64_t off, void *buf,
				  size_t len, struct trawl_error *err)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(ix->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return trawl_error_errno(err, n < 0 ? errno : EIO, "cannot read '%s'",
						 ix->path);
		done += (size_t)n;
	}
	return TRAWL_OK;
}

/* Blocks not yet checked are read whole and hashed from that copy: one
 * pread, no page faults (see query.c on why point queries use pread). */
enum trawl_status idx_pread(const struct trawl_index *ix, uint64_t off, void *buf, size_t len,
			    struct trawl_error *err)
{
	struct idx_checks *c = ix->chk;
	if (!len || c->damaged)
		return idx_result(ix, TRAWL_OK, err);
	if (!in_covered(c, off, len)) {
		idx_mark_damaged(ix, off);
		return idx_result(ix, TRAWL_OK, err);
	}
	uint64_t b0 = off >> IDX_BLOCK_LOG, b1 = (off + len - 1) >> IDX_BLOCK_LOG, b = b0;
	while (b <= b1 && bit_get(c->ok, b))
		b++;
	if (b > b1)
		return read_raw(ix, off, buf, len, err);
	uint64_t lo, hi, x;
	block_span(c, b0, &lo, &x);
	block_span(c, b1, &x, &hi);
	uint8_t small[32768], *tmp = small;
	if (hi - lo > sizeof small && !(tmp = malloc((size_t)(hi - lo))))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	enum trawl_status st = read_raw(ix, lo, tmp, (size_t)(hi - lo), err);
	/* the recorded sums of the span: one read when they are few */
	uint8_t sums[4 * 64];
	int have = b1 - b0 < 64 &&
		   !read_raw(ix, (uint64_t)(c->sums - ix->map) + 4 * b0, sums,
			     (size_t)(4 * (b1 - b0 + 1)), NULL);
	for (b = b0; !st && b <= b1; b++) {
		uint64_t blo, bhi;
		block_span(c, b, &blo, &bhi);
		if (!bit_get(c->ok, b) &&
		    !check_block_sum(ix, b, tmp + (blo - lo), (size_t)(bhi - blo),
				     have ? sums + 4 * (b - b0) : NULL))
			break;
	}
	if (!st)
		memcpy(buf, tmp + (off - lo), len);
	if (tmp != small)
		free(tmp);
	return idx_result(ix, st, err);
}

enum trawl_status idx_result(const struct trawl_index *ix, enum trawl_status st,
			     struct trawl_error *err)
{
	if (!ix->chk || !__atomic_load_n(&ix->chk->damaged, __ATOMIC_RELAXED))
		return st;
	return TRAWL_CORRUPT(err, "'%s' is damaged: checksum mismatch in the block at byte %llu",
			     ix->path, (unsigned long long)(ix->chk->bad_off & ~(IDX_BLOCK - 1)));
}

/* SUMS_TOP against the header, and every piece of SUMS against it. */
static enum trawl_status check_sums_table(const struct trawl_index *ix, struct trawl_error *err)
{
	const struct idx_checks *c = ix->chk;
	const uint8_t *top = ix->sec[SEC_SUMS_TOP].p;
	if (XXH3_64bits(top, (size_t)(c->ntop * 8)) != ld64(ix->map + 896))
		return TRAWL_CORRUPT(err, "'%s': block checksum table is damaged", ix->path);
	for (uint64_t j = 0; j < c->ntop; j++) {
		uint64_t lo = j * IDX_PIECE, hi = lo + IDX_PIECE;
		if (hi > c->nblocks * 4)
			hi = c->nblocks * 4;
		if (idx_top_sum(c->sums + lo, (size_t)(hi - lo), j) != ld64(top + 8 * j))
			return TRAWL_CORRUPT(err, "'%s': block checksum table is damaged", ix->path);
	}
	return TRAWL_OK;
}

enum trawl_status idx_checks_all(const struct trawl_index *ix, struct trawl_error *err)
{
	const struct idx_checks *c = ix->chk;
	enum trawl_status st = check_sums_table(ix, err);
	if (st)
		return st;
	for (uint64_t at = IDX_HEADER_SIZE; at < c->covered; at += IDX_VERIFY_WINDOW) {
		uint64_t n = c->covered - at;
		if (n > IDX_VERIFY_WINDOW)
			n = IDX_VERIFY_WINDOW;
		if (!idx_touch(ix, ix->map + at, n))
			break;
		idx_map_release(ix, ix->map + at, n);
	}
	return idx_result(ix, TRAWL_OK, err);
}

/* Reading a whole index once (verify) must not leave the process holding
 * all of it: the pages of the mapping it is done with are dropped from
 * the process (they stay in the page cache; a later read maps them again). */
void idx_map_release(const struct trawl_index *ix, const uint8_t *p, uint64_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t mask = pg > 0 ? (uintptr_t)pg - 1 : 4095;
	uintptr_t lo = ((uintptr_t)p + mask) & ~mask, hi = ((uintptr_t)p + len) & ~mask;
	(void)ix;
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

enum trawl_status idx_checks_open(struct trawl_index *ix, struct trawl_error *err)
{
	const uint8_t *h = ix->map;
	const struct idx_sec *s = &ix->sec[SEC_SUMS], *t = &ix->sec[SEC_SUMS_TOP];
	struct idx_checks *c = calloc(1, sizeof *c);
	if (!c)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	ix->chk = c;
	c->covered = (uint64_t)(s->p - ix->map);
	c->nblocks = (c->covered + IDX_BLOCK - 1) >> IDX_BLOCK_LOG;
	c->ntop = (c->nblocks + IDX_SUMS_PER_TOP - 1) / IDX_SUMS_PER_TOP;
	if (ld32(h + 120) != IDX_BLOCK_LOG || s->n != c->nblocks || t->n != c->ntop ||
	    (uint64_t)(t->p - ix->map) < c->covered + s->len)
		return TRAWL_CORRUPT(err, "'%s': bad block checksum table", ix->path);
	c->sums = s->p;
	c->ok = calloc((c->nblocks + 63) / 64 + 1, 8);
	if (!c->ok)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	return TRAWL_OK;
}

void idx_checks_close(struct trawl_index *ix)
{
	if (!ix->chk)
		return;
	free(ix->chk->ok);
	free(ix->chk);
	ix->chk = NULL;
}
