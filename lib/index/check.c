/* Block checksums of an index file. Every byte a query reads lies in a
 * 4 KiB block whose checksum (SUMS) is checked the first time the block is
 * read in a process and then remembered in a bitmap, so damage gives an
 * error instead of a wrong answer. SUMS is checked 4 KiB at a time against
 * SUMS_TOP, which is read whole at open and covered by a header field (the
 * header has its own checksum). Damage is sticky: once a handle met it,
 * every later query on it fails too. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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

static void mark_damaged(const struct trawl_index *ix, uint64_t off)
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

/* The recorded sum of block b, from a checked 4 KiB piece of SUMS. Pieces
 * are read with pread into a small cache (not through the mapping: a
 * first touch of a mapped page costs several preads here), checked
 * against SUMS_TOP when they are loaded. */
static int sum_of(const struct trawl_index *ix, uint64_t b, uint32_t *out)
{
	struct idx_checks *c = ix->chk;
	uint64_t j = b / IDX_SUMS_PER_TOP;
	struct idx_sums_slot *sl = &c->slots[j % IDX_SUMS_SLOTS];
	int ok = 1;
	pthread_mutex_lock(&c->mu);
	if (sl->piece != j + 1) {
		uint64_t lo = j * IDX_BLOCK, hi = lo + IDX_BLOCK;
		if (hi > c->nblocks * 4)
			hi = c->nblocks * 4;
		uint64_t off = (uint64_t)(c->sums - ix->map) + lo;
		sl->piece = 0;
		if (read_raw(ix, off, sl->data, (size_t)(hi - lo), NULL) ||
		    idx_top_sum(sl->data, (size_t)(hi - lo), j) != c->top[j]) {
			mark_damaged(ix, off);
			ok = 0;
		} else {
			sl->piece = j + 1;
		}
	}
	if (ok)
		*out = ld32(sl->data + 4 * (b % IDX_SUMS_PER_TOP));
	pthread_mutex_unlock(&c->mu);
	return ok;
}

static int check_block(const struct trawl_index *ix, uint64_t b, const uint8_t *p, size_t n)
{
	uint32_t want;
	if (!sum_of(ix, b, &want))
		return 0;
	if (idx_block_sum(p, n, b) != want) {
		mark_damaged(ix, b << IDX_BLOCK_LOG);
		return 0;
	}
	bit_set(ix->chk->ok, b);
	return 1;
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
		mark_damaged(ix, off);
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

enum trawl_status idx_pread_unchecked(const struct trawl_index *ix, uint64_t off, void *buf,
				      size_t len, struct trawl_error *err)
{
	return read_raw(ix, off, buf, len, err);
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
		mark_damaged(ix, off);
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
	for (b = b0; !st && b <= b1; b++) {
		uint64_t blo, bhi;
		block_span(c, b, &blo, &bhi);
		if (!bit_get(c->ok, b) && !check_block(ix, b, tmp + (blo - lo), (size_t)(bhi - blo)))
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
	return TRAWL_CORRUPT(err, "'%s' is damaged: checksum mismatch in the 4 KiB block at byte %llu",
			     ix->path, (unsigned long long)(ix->chk->bad_off & ~(IDX_BLOCK - 1)));
}

enum trawl_status idx_checks_all(const struct trawl_index *ix, struct trawl_error *err)
{
	const struct idx_checks *c = ix->chk;
	idx_touch(ix, ix->map + IDX_HEADER_SIZE, c->covered - IDX_HEADER_SIZE);
	return idx_result(ix, TRAWL_OK, err);
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
	pthread_mutex_init(&c->mu, NULL);
	c->mu_init = 1;
	c->top = malloc(c->ntop ? c->ntop * 8 : 8);
	c->ok = calloc((c->nblocks + 63) / 64 + 1, 8);
	c->slots = calloc(IDX_SUMS_SLOTS, sizeof *c->slots);
	if (!c->top || !c->ok || !c->slots)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	enum trawl_status st = read_raw(ix, (uint64_t)(t->p - ix->map), c->top,
					(size_t)(c->ntop * 8), err);
	if (st)
		return st;
	if (XXH3_64bits(c->top, (size_t)(c->ntop * 8)) != ld64(h + 896))
		return TRAWL_CORRUPT(err, "'%s': block checksum table is damaged", ix->path);
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
	for (uint64_t j = 0; j < c->ntop; j++)
		c->top[j] = ld64((const uint8_t *)&c->top[j]);
#endif
	return TRAWL_OK;
}

void idx_checks_close(struct trawl_index *ix)
{
	if (!ix->chk)
		return;
	free(ix->chk->top);
	free(ix->chk->ok);
	free(ix->chk->slots);
	if (ix->chk->mu_init)
		pthread_mutex_destroy(&ix->chk->mu);
	free(ix->chk);
	ix->chk = NULL;
}
