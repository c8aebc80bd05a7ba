/* Records on disk for trawl serve (spill.h). */
#include "serve/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPILL_BUF ((size_t)64 << 10)

/* Reads that failed in this thread (the request thread's are checked
 * around each answer, http.c), and why the last one did. */
static _Thread_local uint64_t read_errors;
static _Thread_local char read_why[96];

uint64_t spill_read_errors(void)
{
	return read_errors;
}

const char *spill_read_error(void)
{
	return read_why;
}

/* Fault injection for the tests: while the file TRAWL_SERVE_READ_FAULT
 * names exists, every read fails with EIO. */
static int read_fault(void)
{
	const char *p = getenv("TRAWL_SERVE_READ_FAULT");
	return p && *p && access(p, F_OK) == 0;
}

static int temp_fd(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT))
		return fd;
	/* a file system without O_TMPFILE: a named file, unlinked at once */
	char path[4096];
	snprintf(path, sizeof path, "%s/trawl-serve-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int spill_open(struct spill *s, uint32_t rec)
{
	memset(s, 0, sizeof *s);
	s->rec = rec;
	s->buf = malloc(SPILL_BUF / rec * rec);
	s->fd = s->buf ? temp_fd() : -1;
	if (s->fd < 0) {
		free(s->buf);
		s->buf = NULL;
		return -1;
	}
	return 0;
}

/* All of [off, off + n) read into or written from p (EINTR and short
 * transfers retried). */
static int xfer(int fd, void *p, size_t n, uint64_t off, int write)
{
	if (!write && read_fault()) {
		errno = EIO;
		goto failed;
	}
	for (char *c = p; n;) {
		ssize_t r = write ? pwrite(fd, c, n, (off_t)off) : pread(fd, c, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				errno = write ? ENOSPC : EIO;
			if (write)
				return -1;
			goto failed;
		}
		c += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
failed:
	read_errors++;
	snprintf(read_why, sizeof read_why, "%s", strerror(errno));
	return -1;
}

static int flush(struct spill *s)
{
	uint64_t at = (s->n - s->used / s->rec) * s->rec;
	if (s->used && xfer(s->fd, s->buf, s->used, at, 1))
		return -1;
	s->used = 0;
	return 0;
}

int spill_add(struct spill *s, const void *r)
{
	if (s->used + s->rec > SPILL_BUF / s->rec * s->rec && flush(s))
		return -1;
	memcpy(s->buf + s->used, r, s->rec);
	s->used += s->rec;
	s->n++;
	return 0;
}

int spill_read(const struct spill *s, uint64_t first, uint64_t n, void *out)
{
	return xfer(s->fd, out, (size_t)(n * s->rec), first * s->rec, 0);
}

int spill_write(struct spill *s, uint64_t first, uint64_t n, const void *in)
{
	return xfer(s->fd, (void *)in, (size_t)(n * s->rec), first * s->rec, 1);
}

int spill_seal(struct spill *s)
{
	if (flush(s))
		return -1;
	free(s->buf);
	s->buf = NULL;
	s->cache = calloc(1, sizeof *s->cache);
	if (!s->cache || !(s->cache->data = malloc((size_t)SPILL_CACHE * SPILL_STEP * s->rec)))
		return -1;
	return 0;
}

/* Block b (records b * SPILL_STEP..) through the cache; NULL on a read error. */
static const unsigned char *block(const struct spill *s, uint64_t b)
{
	struct spill_cache *c = s->cache;
	size_t slot = (size_t)(b % SPILL_CACHE);
	unsigned char *p = c->data + slot * SPILL_STEP * s->rec;
	if (c->tag[slot] == b + 1)
		return p;
	uint64_t first = b * SPILL_STEP, n = s->n - first < SPILL_STEP ? s->n - first : SPILL_STEP;
	c->tag[slot] = 0;
	if (spill_read(s, first, n, p))
		return NULL;
	c->tag[slot] = b + 1;
	return p;
}

int spill_get(const struct spill *s, uint64_t i, void *out)
{
	const unsigned char *p = i < s->n ? block(s, i / SPILL_STEP) : NULL;
	if (!p) {
		memset(out, 0, s->rec);
		return -1;
	}
	memcpy(out, p + (i % SPILL_STEP) * s->rec, s->rec);
	return 0;
}

static uint64_t key_of(const struct spill *s, const unsigned char *r, uint32_t off)
{
	uint64_t k;
	(void)s;
	memcpy(&k, r + off, sizeof k);
	return k;
}

int spill_index(struct spill *s, unsigned slot, uint32_t off)
{
	struct spill_keys *k = &s->keys[slot];
	k->off = off;
	k->n = (size_t)((s->n + SPILL_STEP - 1) / SPILL_STEP);
	k->k = malloc((k->n ? k->n : 1) * sizeof *k->k);
	if (!k->k)
		return -1;
	/* a pass in chunks of whole blocks (not through the cache) */
	enum { CH = 64 * SPILL_STEP };
	unsigned char *buf = malloc((size_t)CH * s->rec);
	if (!buf)
		return -1;
	for (uint64_t at = 0; at < s->n; at += CH) {
		uint64_t n = s->n - at < CH ? s->n - at : CH;
		if (spill_read(s, at, n, buf)) {
			free(buf);
			return -1;
		}
		for (uint64_t i = 0; i < n; i += SPILL_STEP)
			k->k[(at + i) / SPILL_STEP] = key_of(s, buf + i * s->rec, off);
	}
	free(buf);
	return 0;
}

size_t spill_key_rank(const struct spill *s, unsigned slot, uint64_t t)
{
	const struct spill_keys *k = &s->keys[slot];
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (k->k[m] < t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

uint64_t spill_lower(const struct spill *s, unsigned slot, uint64_t t)
{
	const struct spill_keys *k = &s->keys[slot];
	/* lo: keys below t; the answer is in block lo - 1 or is lo * STEP */
	size_t lo = spill_key_rank(s, slot, t);
	if (!lo)
		return 0;
	uint64_t b = lo - 1, first = b * SPILL_STEP;
	uint64_t n = s->n - first < SPILL_STEP ? s->n - first : SPILL_STEP, l = 1, h = n;
	const unsigned char *p = block(s, b);
	if (!p)
		return first + n;
	while (l < h) {         /* record 0 of the block is below t */
		uint64_t m = l + (h - l) / 2;
		if (key_of(s, p + m * s->rec, k->off) < t)
			l = m + 1;
		else
			h = m;
	}
	return first + l;
}

void spill_close(struct spill *s)
{
	if (!s->rec)
		return;         /* never opened (a zeroed struct) */
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	if (s->cache)
		free(s->cache->data);
	free(s->cache);
	free(s->keys[0].k);
	free(s->keys[1].k);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}
