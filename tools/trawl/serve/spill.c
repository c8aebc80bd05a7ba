/* Records on disk for trawl serve (spill.h). */
#include "serve/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SPILL_BUF ((size_t)64 << 10)

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

static int write_all(int fd, const void *p, size_t n, uint64_t off)
{
	for (const char *c = p; n;) {
		ssize_t w = pwrite(fd, c, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = ENOSPC;
			return -1;
		}
		c += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int flush(struct spill *s)
{
	uint64_t at = (s->n - s->used / s->rec) * s->rec;
	if (s->used && write_all(s->fd, s->buf, s->used, at))
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
	size_t len = (size_t)(n * s->rec);
	uint64_t off = first * s->rec;
	for (char *c = out; len;) {
		ssize_t r = pread(s->fd, c, len, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				errno = EIO;
			return -1;
		}
		c += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int spill_write(struct spill *s, uint64_t first, uint64_t n, const void *in)
{
	return write_all(s->fd, in, (size_t)(n * s->rec), first * s->rec);
}

int spill_seal(struct spill *s)
{
	if (flush(s))
		return -1;
	free(s->buf);
	s->buf = NULL;
	s->map_len = (size_t)(s->n * s->rec);
	if (!s->map_len)
		return 0;
	void *m = mmap(NULL, s->map_len, PROT_READ, MAP_PRIVATE, s->fd, 0);
	if (m == MAP_FAILED)
		return -1;
	madvise(m, s->map_len, MADV_RANDOM);
	s->map = m;
	return 0;
}

void spill_trim(struct spill *s)
{
	if (s->map)
		madvise((void *)s->map, s->map_len, MADV_DONTNEED);
}

void spill_close(struct spill *s)
{
	if (!s->rec)
		return;         /* never opened (a zeroed struct) */
	if (s->map)
		munmap((void *)s->map, s->map_len);
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}
