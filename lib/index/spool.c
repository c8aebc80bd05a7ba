/* Buffered files, spools and the external sorter used by the builder. */
#include "index/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "index/format.h"

#define FILE_BUF (1u << 20)

/* 64-bit hash: 8 bytes at a time, multiply-xorshift mixing. Not
 * cryptographic; it detects damage and tells traces apart. */
static inline uint64_t mix_word(uint64_t h, uint64_t v)
{
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 32;
	h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

void idx_hasher_init(struct idx_hasher *hs, uint64_t seed)
{
	memset(hs, 0, sizeof *hs);
	for (int i = 0; i < 4; i++)
		hs->h[i] = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
}

/* Four independent lanes over 32-byte stripes keep the multipliers busy. */
static void stripes(uint64_t *h, const uint8_t *p, size_t n)
{
	uint64_t a = h[0], b = h[1], c = h[2], d = h[3];
	for (; n >= 32; p += 32, n -= 32) {
		a = mix_word(a, ld64(p));
		b = mix_word(b, ld64(p + 8));
		c = mix_word(c, ld64(p + 16));
		d = mix_word(d, ld64(p + 24));
	}
	h[0] = a;
	h[1] = b;
	h[2] = c;
	h[3] = d;
}

void idx_hasher_update(struct idx_hasher *hs, const void *data, size_t len)
{
	const uint8_t *p = data;
	if (!len)
		return;
	hs->len += len;
	if (hs->npend) {
		size_t k = 32 - hs->npend < len ? 32 - hs->npend : len;
		memcpy(hs->pend + hs->npend, p, k);
		hs->npend += (unsigned)k;
		p += k;
		len -= k;
		if (hs->npend < 32)
			return;
		stripes(hs->h, hs->pend, 32);
		hs->npend = 0;
	}
	size_t whole = len & ~(size_t)31;
	stripes(hs->h, p, whole);
	memcpy(hs->pend, p + whole, len - whole);
	hs->npend = (unsigned)(len - whole);
}

uint64_t idx_hasher_final(const struct idx_hasher *hs)
{
	uint64_t h = hs->h[0];
	h = mix_word(h, hs->h[1]);
	h = mix_word(h, hs->h[2]);
	h = mix_word(h, hs->h[3]);
	for (unsigned i = 0; i < hs->npend; i += 8) {
		uint64_t t = 0;
		for (unsigned j = i; j < hs->npend && j < i + 8; j++)
			t |= (uint64_t)hs->pend[j] << (8 * (j - i));
		h = mix_word(h, t);
	}
	h = mix_word(h, hs->len);
	return h ^ (h >> 33);
}

uint64_t idx_hash(uint64_t seed, const void *data, size_t len)
{
	struct idx_hasher hs;
	idx_hasher_init(&hs, seed);
	idx_hasher_update(&hs, data, len);
	return idx_hasher_final(&hs);
}

static enum trawl_status file_init(struct idx_file *f, int fd, const char *what,
				   struct trawl_error *err)
{
	memset(f, 0, sizeof *f);
	f->fd = fd;
	f->what = what;
	f->cap = FILE_BUF;
	f->buf = malloc(f->cap);
	if (!f->buf) {
		f->fd = -1;
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory for %s", what);
	}
	return TRAWL_OK;
}

enum trawl_status idx_file_temp(struct idx_file *f, const char *dir, const char *what,
				struct trawl_error *err)
{
	int fd = -1;
	if (!dir) {
		/* an index built in memory spools in memory too */
		fd = memfd_create("trawl-spool", MFD_CLOEXEC);
		if (fd < 0)
			return trawl_error_errno(err, errno, "cannot make a spool in memory");
	}
#ifdef O_TMPFILE
	if (fd < 0)
		fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
	if (fd < 0) {
		char path[4096];
		snprintf(path, sizeof path, "%s/.trawl-spool-XXXXXX", dir);
		fd = mkstemp(path);
		if (fd < 0)
			return trawl_error_errno(err, errno, "cannot create a temporary file in '%s'",
						 dir);
		unlink(path);
	}
	enum trawl_status st = file_init(f, fd, what, err);
	if (st)
		close(fd);
	else
		idx_file_mark(f);
	return st;
}

enum trawl_status idx_file_fd(struct idx_file *f, int fd, const char *what,
			      struct trawl_error *err)
{
	return file_init(f, fd, what, err);
}

enum trawl_status idx_file_flush(struct idx_file *f, struct trawl_error *err)
{
	size_t done = 0;
	while (done < f->len) {
		ssize_t n = write(f->fd, f->buf + done, f->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return trawl_error_errno(err, errno, "cannot write %s of the index being built", f->what);
		if (n == 0)
			return trawl_error_errno(err, ENOSPC, "cannot write %s of the index being built", f->what);
		done += (size_t)n;
	}
	f->len = 0;
	return TRAWL_OK;
}

enum trawl_status idx_file_write(struct idx_file *f, const void *data, size_t len,
				 struct trawl_error *err)
{
	if (f->z)
		return idx_zsink_write(f, data, len, err);
	return idx_file_write_raw(f, data, len, err);
}

enum trawl_status idx_file_write_raw(struct idx_file *f, const void *data, size_t len,
				     struct trawl_error *err)
{
	const uint8_t *p = data;
	if (!len)
		return TRAWL_OK;
	if (!f->nosum)
		idx_hasher_update(&f->sum, p, len);
	while (len) {
		if (f->len == f->cap) {
			enum trawl_status st = idx_file_flush(f, err);
			if (st)
				return st;
		}
		size_t k = f->cap - f->len < len ? f->cap - f->len : len;
		memcpy(f->buf + f->len, p, k);
		f->len += k;
		f->pos += k;
		p += k;
		len -= k;
	}
	return TRAWL_OK;
}

void idx_file_mark(struct idx_file *f)
{
	idx_hasher_init(&f->sum, 0);
}

uint64_t idx_file_sum(const struct idx_file *f)
{
	return idx_hasher_final(&f->sum);
}

enum trawl_status idx_file_align(struct idx_file *f, struct trawl_error *err)
{
	static const uint8_t zero[8];
	size_t pad = (size_t)((8 - f->pos % 8) % 8);
	return pad ? idx_file_write(f, zero, pad, err) : TRAWL_OK;
}

enum trawl_status idx_file_copy(struct idx_file *f, struct idx_file *src,
				struct trawl_error *err)
{
	enum trawl_status st;
	if ((st = idx_file_flush(src, err)) || (st = idx_file_flush(f, err)))
		return st;
	uint64_t left = src->pos;
	loff_t off = 0;
	while (left && !f->z) {
		ssize_t n = copy_file_range(src->fd, &off, f->fd, NULL, (size_t)left, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* not supported here: copy through memory */
		left -= (uint64_t)n;
	}
	f->pos += src->pos - left;
	while (left) {
		size_t want = left < src->cap ? (size_t)left : src->cap;
		ssize_t n = pread(src->fd, src->buf, want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return trawl_error_errno(err, n < 0 ? errno : EIO, "cannot read back %s",
						 src->what);
		if ((st = idx_file_write(f, src->buf, (size_t)n, err)))
			return st;
		off += n;
		left -= (uint64_t)n;
	}
	if (!f->z)
		f->sum = src->sum;
	return TRAWL_OK;
}

enum trawl_status idx_sec_begin(struct idx_file *f, struct idx_secent *s, uint32_t id,
				uint32_t rec, struct trawl_error *err)
{
	enum trawl_status st = idx_file_align(f, err);
	if (st)
		return st;
	idx_file_mark(f);
	s->id = id;
	s->rec = rec;
	s->off = f->pos;
	return TRAWL_OK;
}

void idx_sec_end(struct idx_file *f, struct idx_secent *s)
{
	s->len = f->pos - s->off;
	s->sum = idx_file_sum(f);
}

void idx_file_close(struct idx_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
	memset(f, 0, sizeof *f);
	f->fd = -1;
}

/* ---- sorting ---- */

/* One LSD pass: records of size rec (a constant where this is inlined,
 * so the copy is a few moves rather than a call) by the digit at shift. */
static inline void radix_pass(const uint8_t *src, uint8_t *dst, size_t n, size_t rec,
			      unsigned shift, size_t *count)
{
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = src + i * rec;
		memcpy(dst + count[(ld64(r) >> shift) & 0xff]++ * rec, r, rec);
	}
}

enum trawl_status idx_sort_records(uint8_t *recs, size_t n, size_t rec)
{
	if (n < 2)
		return TRAWL_OK;
	/* every digit's counts in one pass; a digit that is the same in
	 * every record needs no pass */
	size_t (*count)[256] = calloc(8, sizeof *count);
	if (!count)
		return TRAWL_ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = ld64(recs + i * rec);
		for (unsigned d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 0xff]++;
	}
	uint8_t *tmp = NULL, *src = recs, *dst = NULL;
	for (unsigned d = 0; d < 8; d++) {
		size_t *c = count[d], sum = 0;
		if (c[(ld64(recs) >> (8 * d)) & 0xff] == n)
			continue;
		if (!tmp && !(tmp = malloc(n * rec))) {
			free(count);
			return TRAWL_ERR_NOMEM;
		}
		if (!dst)
			dst = tmp;
		for (unsigned b = 0; b < 256; b++) {
			size_t x = c[b];
			c[b] = sum;
			sum += x;
		}
		switch (rec) {
		case 16: radix_pass(src, dst, n, 16, 8 * d, c); break;
		case 24: radix_pass(src, dst, n, 24, 8 * d, c); break;
		case 32: radix_pass(src, dst, n, 32, 8 * d, c); break;
		default: radix_pass(src, dst, n, rec, 8 * d, c); break;
		}
		uint8_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != recs)
		memcpy(recs, src, n * rec);
	free(tmp);
	free(count);
	return TRAWL_OK;
}

enum trawl_status idx_sorter_init(struct idx_sorter *s, size_t rec, size_t memory,
				  const char *dir, struct trawl_error *err)
{
	memset(s, 0, sizeof *s);
	s->rec = rec;
	s->dir = dir;
	s->spool.fd = -1;
	/* half the budget for records, half for the radix sort's scratch */
	s->cap = memory / 2 / rec;
	if (s->cap < 64)
		s->cap = 64;
	return TRAWL_OK;
}

static enum trawl_status spill(struct idx_sorter *s, struct trawl_error *err)
{
	enum trawl_status st;
	if (!s->n)
		return TRAWL_OK;
	if (idx_sort_records(s->buf, s->n, s->rec))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory sorting index records");
	if (!s->has_spool) {
		st = idx_file_temp(&s->spool, s->dir, "index sort run", err);
		if (st)
			return st;
		s->spool.nosum = 1; /* read back by the merge only */
		s->has_spool = 1;
	}
	uint64_t *runs = realloc(s->runs, (s->nruns + 1) * sizeof *runs);
	if (!runs)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory sorting index records");
	s->runs = runs;
	st = idx_file_write(&s->spool, s->buf, s->n * s->rec, err);
	if (st)
		return st;
	runs[s->nruns++] = s->n;
	s->n = 0;
	return TRAWL_OK;
}

enum trawl_status idx_sorter_add(struct idx_sorter *s, uint8_t **rec, struct trawl_error *err)
{
	if (!s->buf) {
		/* start small, grow up to the budget */
		size_t c = s->cap < 4096 ? s->cap : 4096;
		s->buf = malloc(c * s->rec);
		if (!s->buf)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory for index records");
		s->cap_now = c;
	}
	if (s->n == s->cap_now) {
		if (s->cap_now < s->cap) {
			size_t c = s->cap_now * 2 < s->cap ? s->cap_now * 2 : s->cap;
			uint8_t *b = realloc(s->buf, c * s->rec);
			if (!b)
				return trawl_error_set(err, TRAWL_ERR_NOMEM,
						       "out of memory for index records");
			s->buf = b;
			s->cap_now = c;
		} else {
			enum trawl_status st = spill(s, err);
			if (st)
				return st;
		}
	}
	*rec = s->buf + s->n * s->rec;
	s->n++;
	s->total++;
	return TRAWL_OK;
}

/* One run being merged: a window of its records read from the spool. */
struct run_reader {
	uint64_t off, left;     /* spool offset and records not yet read */
	uint8_t *buf;
	size_t n, i;
};

static enum trawl_status run_fill(struct idx_sorter *s, struct run_reader *r, size_t cap,
				  struct trawl_error *err)
{
	size_t want = r->left < cap ? (size_t)r->left : cap;
	size_t bytes = want * s->rec, done = 0;
	while (done < bytes) {
		ssize_t n = pread(s->spool.fd, r->buf + done, bytes - done, (off_t)(r->off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return trawl_error_errno(err, n < 0 ? errno : EIO,
						 "cannot read back index sort run");
		done += (size_t)n;
	}
	r->off += bytes;
	r->left -= want;
	r->n = want;
	r->i = 0;
	return TRAWL_OK;
}

static enum trawl_status fence_put(struct idx_fence *f, const uint8_t *rec,
				   struct trawl_error *err)
{
	if (f->n + FENCE_REC > f->cap) {
		size_t c = f->cap ? f->cap * 2 : 4096;
		uint8_t *p = realloc(f->p, c);
		if (!p)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		f->p = p;
		f->cap = c;
	}
	memcpy(f->p + f->n, rec, FENCE_REC);
	f->n += FENCE_REC;
	return TRAWL_OK;
}

enum trawl_status idx_fence_add(struct idx_fence *f, const uint8_t *rec,
				struct trawl_error *err)
{
	if (f->count++ % IDX_FENCE)
		return TRAWL_OK;
	return fence_put(f, rec, err);
}

/* n consecutive records of size rec: the same fences as n idx_fence_add. */
static enum trawl_status fence_add_run(struct idx_fence *f, const uint8_t *recs, size_t n,
				       size_t rec, struct trawl_error *err)
{
	uint64_t i = (IDX_FENCE - f->count % IDX_FENCE) % IDX_FENCE;
	f->count += n;
	for (; i < n; i += IDX_FENCE) {
		enum trawl_status st = fence_put(f, recs + i * rec, err);
		if (st)
			return st;
	}
	return TRAWL_OK;
}

/* The sorted records into out: sorted in memory when nothing was spilled,
 * else a k-way merge of the spilled runs (the earlier run wins ties, which
 * keeps the order). The merge's readers and its loop share the buffers it
 * frees at one exit. */
enum trawl_status idx_sorter_output(struct idx_sorter *s, struct idx_file *out,
				    struct idx_fence *fence, struct trawl_error *err)
{
	enum trawl_status st;
	if (!s->nruns) {
		if (idx_sort_records(s->buf, s->n, s->rec))
			return trawl_error_set(err, TRAWL_ERR_NOMEM,
					       "out of memory sorting index records");
		if ((st = fence_add_run(fence, s->buf, s->n, s->rec, err)))
			return st;
		return s->n ? idx_file_write(out, s->buf, s->n * s->rec, err) : TRAWL_OK;
	}
	st = spill(s, err);
	if (st)
		return st;
	st = idx_file_flush(&s->spool, err);
	if (st)
		return st;
	free(s->buf);
	s->buf = NULL;
	/* k-way merge; the earlier run wins ties, which keeps the order */
	size_t k = s->nruns, per = 1u << 16;
	struct run_reader *rr = calloc(k, sizeof *rr);
	if (!rr)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory merging index records");
	uint64_t off = 0;
	st = TRAWL_OK;
	for (size_t i = 0; i < k && !st; i++) {
		rr[i].off = off;
		rr[i].left = s->runs[i];
		off += s->runs[i] * s->rec;
		rr[i].buf = malloc(per * s->rec);
		if (!rr[i].buf)
			st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory merging");
		else
			st = run_fill(s, &rr[i], per, err);
	}
	/* each step takes from the run with the smallest (key, run) as many
	 * records as come before the head of the next smallest, so a key
	 * repeated through a run (a PC in a loop) costs one write */
	while (!st) {
		size_t best = k, next = k;
		uint64_t bk = 0, nk = 0;
		for (size_t i = 0; i < k; i++) {
			if (rr[i].i == rr[i].n)
				continue;
			uint64_t key = ld64(rr[i].buf + rr[i].i * s->rec);
			if (best == k || key < bk) {
				next = best;
				nk = bk;
				best = i;
				bk = key;
			} else if (next == k || key < nk) {
				next = i;
				nk = key;
			}
		}
		if (best == k)
			break;
		struct run_reader *r = &rr[best];
		size_t j = r->i + 1;
		if (next == k) {
			j = r->n;
		} else {
			for (; j < r->n; j++) {
				uint64_t key = ld64(r->buf + j * s->rec);
				if (key > nk || (key == nk && best > next))
					break;
			}
		}
		const uint8_t *from = r->buf + r->i * s->rec;
		st = fence_add_run(fence, from, j - r->i, s->rec, err);
		if (!st)
			st = idx_file_write(out, from, (j - r->i) * s->rec, err);
		r->i = j;
		if (!st && r->i == r->n && r->left)
			st = run_fill(s, r, per, err);
	}
	for (size_t i = 0; i < k; i++)
		free(rr[i].buf);
	free(rr);
	return st;
}

void idx_sorter_release(struct idx_sorter *s)
{
	if (s->has_spool)
		idx_file_close(&s->spool);
	free(s->buf);
	free(s->runs);
	memset(s, 0, sizeof *s);
}
