/* Thread buffers that outlive the process: DIR/.ring-N mapped shared
 * (layout in rec-ring.h), or anonymous memory of the same layout. */
#include "rec-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t p = pg > 0 ? (size_t)pg : 4096;
	return (n + p - 1) / p * p;
}

/* Write every page now: a shared file mapping is populated read-only
 * (MAP_POPULATE does not dirty it), so without this each page's first
 * store would fault on the fast path. */
static void prefault(uint8_t *p, size_t n)
{
	memset(p, 0, n);
}

static int map_file(struct rec_ring *r, const char *dir, uint32_t sid)
{
	snprintf(r->path, sizeof r->path, "%s/.ring-%u", dir, sid);
	int fd = open(r->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return -errno;
	int rc = 0;
	/* blocks allocated now: a full disk fails here, not as SIGBUS later */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		rc = -errno;
	else if ((rc = posix_fallocate(fd, 0, (off_t)r->size)) != 0)
		rc = -rc;
	if (rc == 0) {
		void *m = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
		if (m == MAP_FAILED)
			rc = -errno;
		else
			r->base = m;
	}
	if (rc) {
		close(fd);
		unlink(r->path);
		r->path[0] = 0;
		return rc;
	}
	r->fd = fd;
	return 0;
}

int rec_ring_create(struct rec_ring *r, const char *dir, uint32_t sid, uint32_t nsub, size_t sub_size,
		    const struct trawl_ring_head *tmpl)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	size_t data_off = page_round(TRAWL_RING_HEAD + (size_t)nsub * sizeof(struct trawl_ring_sub));
	r->size = data_off + (size_t)nsub * sub_size;
	if (!dir || map_file(r, dir, sid) != 0) {
		void *m = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -ENOMEM;
		r->base = m;
	}
	prefault(r->base, r->size);
	r->head = (struct trawl_ring_head *)r->base;
	r->subs = (struct trawl_ring_sub *)(r->base + TRAWL_RING_HEAD);
	r->data = r->base + data_off;
	*r->head = *tmpl;
	r->head->magic = TRAWL_RING_MAGIC;
	r->head->version = TRAWL_RING_VERSION;
	r->head->head_size = TRAWL_RING_HEAD;
	r->head->nsub = nsub;
	r->head->sub_size = sub_size;
	r->head->data_off = data_off;
	r->head->stream_id = sid;
	for (uint32_t i = 0; i < nsub; i++)
		r->subs[i].ready = UINT64_MAX;
	return 0;
}

void rec_ring_unlink(struct rec_ring *r)
{
	if (r->fd < 0)
		return;
	unlink(r->path);
	close(r->fd);
	r->fd = -1;
}

void rec_ring_release(struct rec_ring *r, int remove)
{
	if (remove)
		rec_ring_unlink(r);
	else
		rec_ring_forget(r);
	if (r->base)
		munmap(r->base, r->size);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

void rec_ring_forget(struct rec_ring *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void rec_ring_pending(struct rec_ring *r, const struct trawl_ring_cursor *c)
{
	struct trawl_ring_cursor *p = &r->head->pending;
	uint64_t gen = r->head->committed.gen + 1;
	*p = *c;
	p->gen = 0;
	/* the generation last: a half-written entry never looks valid */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&p->gen, gen, __ATOMIC_RELAXED);
}

void rec_ring_commit(struct rec_ring *r)
{
	struct trawl_ring_cursor *c = &r->head->committed;
	const struct trawl_ring_cursor *p = &r->head->pending;
	uint64_t gen = p->gen;
	c->consumed = p->consumed;
	c->coff = p->coff;
	c->expected = p->expected;
	c->gaps = p->gaps;
	c->packet_seq = p->packet_seq;
	c->reported = p->reported;
	c->file_size = p->file_size;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&c->gen, gen, __ATOMIC_RELAXED);
}
