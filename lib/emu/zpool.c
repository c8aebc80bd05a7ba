/* Compressing a .zst trace on threads of our own.
 *
 * Level 1 costs about seven times the CPU time of emulating and formatting
 * the trace, so on two cores the emulator can go at most twice as fast as
 * with inline compression, and only if nothing else is spent. zstd's own
 * workers (nbWorkers) copy all the input into their job buffers and overlap
 * the jobs; that cost about 11% more CPU, which on two cores is wall time.
 * Here each block the emulator fills becomes an independent frame,
 * compressed in one call on a context reused per thread: no copy, no shared
 * window. A block goes to the workers by swapping the caller's buffer for
 * an empty one; when every worker is busy and a block already waits, the
 * caller compresses its block itself, while it is still in its cache (so on
 * two CPUs one worker and the emulator share the compression, two threads
 * for two cores). Frames are written in the order the blocks came, by
 * whichever thread finds the next one ready.
 *
 * Blocks live in a ring of slots; slot seq % nslots holds block seq from
 * the moment it is taken until its frame is written, so at most nslots
 * blocks are in flight and the memory stays bounded. The first error (a
 * compression or a write that failed) stops everything after it: the
 * frames before it are written whole, later ones not at all, and the next
 * take and the close report it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "emu/zpool.h"

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_WORKING, SLOT_READY };

struct zslot {
	enum slot_state state;
	uint64_t seq;           /* the block it holds (not FREE) */
	char *in;               /* a worker's text, cap bytes of which len used */
	size_t len, cap;
	uint8_t *out;           /* the frame (READY), olen bytes */
	size_t olen, ocap;
	enum trawl_status st;   /* compressing failed (READY) */
	struct trawl_error err;
};

struct zworker {
	struct emu_zpool *z;
	ZSTD_CCtx *cc;
	pthread_t tid;
	int started;
};

struct emu_zpool {
	int fd;
	const char *path;
	pthread_mutex_t mu;
	pthread_cond_t work;    /* a block was queued, or closing */
	pthread_cond_t turn;    /* a frame was written: a slot is free */
	struct zslot *slots;
	unsigned nslots;
	struct zworker *workers;
	int nworkers;
	int idle;               /* workers waiting for a block */
	unsigned queued;        /* blocks waiting for a worker */
	ZSTD_CCtx *own;         /* the caller's, for the blocks it keeps */
	uint64_t next_seq;      /* number the next block taken gets */
	uint64_t next_take;     /* no queued block below it */
	uint64_t next_write;    /* next block whose frame is written */
	int writing;            /* a thread is writing (lock released) */
	uint64_t frames;        /* frames written */
	uint64_t written;       /* bytes written */
	int closing, abandon;
	enum trawl_status st;   /* first error, and its message */
	struct trawl_error err;
};

static enum trawl_status write_all(struct emu_zpool *z, const uint8_t *b, size_t n,
				   uint64_t *done, struct trawl_error *err)
{
	while (n > 0) {
		ssize_t w = write(z->fd, b, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return trawl_error_errno(err, errno, "cannot write '%s'", z->path);
		}
		b += w;
		n -= (size_t)w;
		*done += (uint64_t)w;
	}
	return TRAWL_OK;
}

/* len bytes at in into the slot's frame (out buffer sized for cap). */
static void compress_block(ZSTD_CCtx *cc, struct zslot *s, const char *in, size_t len, size_t cap)
{
	size_t bound = ZSTD_compressBound(cap > len ? cap : len);
	s->st = TRAWL_OK;
	if (s->ocap < bound) {
		free(s->out);
		s->ocap = 0;
		if (!(s->out = malloc(bound))) {
			s->st = trawl_error_set(&s->err, TRAWL_ERR_NOMEM, "out of memory compressing the trace");
			return;
		}
		s->ocap = bound;
	}
	s->olen = ZSTD_compress2(cc, s->out, s->ocap, in, len);
	if (ZSTD_isError(s->olen))
		s->st = trawl_error_set(&s->err, TRAWL_ERR_INTERNAL, "zstd compression failed: %s",
					ZSTD_getErrorName(s->olen));
}

/* Write the frames that are ready, in order, unless another thread is at
 * it (it will come back for them). Called and returns with the lock held;
 * released around each write(2). */
static void drain(struct emu_zpool *z)
{
	while (!z->writing && z->next_write < z->next_seq) {
		struct zslot *s = &z->slots[z->next_write % z->nslots];
		if (s->state != SLOT_READY)
			break;
		if (z->st == TRAWL_OK && !z->abandon) {
			if (s->st) {
				z->st = s->st;
				z->err = s->err;
			} else {
				uint64_t done = 0;
				struct trawl_error err;
				z->writing = 1;
				pthread_mutex_unlock(&z->mu);
				enum trawl_status st = write_all(z, s->out, s->olen, &done, &err);
				pthread_mutex_lock(&z->mu);
				z->writing = 0;
				z->written += done;
				z->frames += st == TRAWL_OK;
				if (st) {
					z->st = st;
					z->err = err;
				}
			}
		}
		s->state = SLOT_FREE;
		z->next_write++;
		if (z->next_take < z->next_write)
			z->next_take = z->next_write;
		pthread_cond_broadcast(&z->turn);
	}
}

/* Take the oldest queued block, compress it outside the lock, write what
 * is ready. Blocks the caller kept are passed over. */
static void *worker_main(void *arg)
{
	struct zworker *w = arg;
	struct emu_zpool *z = w->z;
	pthread_mutex_lock(&z->mu);
	for (;;) {
		while (z->next_take < z->next_seq &&
		       z->slots[z->next_take % z->nslots].state != SLOT_QUEUED)
			z->next_take++;
		if (z->next_take == z->next_seq) {
			if (z->closing)
				break;
			z->idle++;
			pthread_cond_wait(&z->work, &z->mu);
			z->idle--;
			continue;
		}
		struct zslot *s = &z->slots[z->next_take++ % z->nslots];
		s->state = SLOT_WORKING;
		z->queued--;
		int skip = z->st != TRAWL_OK || z->abandon;
		pthread_mutex_unlock(&z->mu);
		if (!skip)
			compress_block(w->cc, s, s->in, s->len, s->cap);
		pthread_mutex_lock(&z->mu);
		s->state = SLOT_READY;
		drain(z);
	}
	pthread_mutex_unlock(&z->mu);
	return NULL;
}

/* Stop and join the workers started so far, free everything. */
static void pool_free(struct emu_zpool *z)
{
	pthread_mutex_lock(&z->mu);
	z->closing = 1;
	pthread_cond_broadcast(&z->work);
	pthread_mutex_unlock(&z->mu);
	for (int i = 0; i < z->nworkers; i++) {
		if (z->workers[i].started)
			pthread_join(z->workers[i].tid, NULL);
		ZSTD_freeCCtx(z->workers[i].cc);
	}
	for (unsigned i = 0; i < z->nslots; i++) {
		free(z->slots[i].in);
		free(z->slots[i].out);
	}
	ZSTD_freeCCtx(z->own);
	pthread_cond_destroy(&z->turn);
	pthread_cond_destroy(&z->work);
	pthread_mutex_destroy(&z->mu);
	free(z->workers);
	free(z->slots);
	free(z);
}

enum trawl_status emu_zpool_open(struct emu_zpool **out, int fd, const char *path, int threads,
				 void (*setup)(ZSTD_CCtx *cc), struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	*out = NULL;
	if (threads < 1)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "a compression pool needs a thread");
	struct emu_zpool *z = calloc(1, sizeof *z);
	if (!z)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	pthread_mutex_init(&z->mu, NULL);
	pthread_cond_init(&z->work, NULL);
	pthread_cond_init(&z->turn, NULL);
	z->fd = fd;
	z->path = path;
	/* per thread (the caller's too) one block compressing and one ready
	 * or waiting, so that no one waits for long */
	z->nslots = 2 * (unsigned)threads + 2;
	z->slots = calloc(z->nslots, sizeof *z->slots);
	z->workers = calloc((size_t)threads, sizeof *z->workers);
	if (!z->slots || !z->workers || !(z->own = ZSTD_createCCtx())) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto fail;
	}
	setup(z->own);
	z->nworkers = threads;
	for (int i = 0; i < threads; i++) {
		z->workers[i].z = z;
		if (!(z->workers[i].cc = ZSTD_createCCtx())) {
			st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
			goto fail;
		}
		setup(z->workers[i].cc);
	}
	/* the workers take no signals: those are the emulator's to handle */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < threads && st == TRAWL_OK; i++) {
		int e = pthread_create(&z->workers[i].tid, NULL, worker_main, &z->workers[i]);
		if (e)
			st = trawl_error_errno(err, e, "cannot start a compression thread");
		else
			z->workers[i].started = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (st)
		goto fail;
	*out = z;
	return TRAWL_OK;
fail:
	pool_free(z);
	return st;
}

/* Compress block seq in its slot here, from the caller's buffer (which
 * the caller keeps). Called with the lock held, returns without it. */
static enum trawl_status keep_block(struct emu_zpool *z, struct zslot *s, const char *buf,
				    size_t len, size_t cap)
{
	s->seq = z->next_seq++;
	s->state = SLOT_WORKING;
	pthread_mutex_unlock(&z->mu);
	compress_block(z->own, s, buf, len, cap);
	pthread_mutex_lock(&z->mu);
	s->state = SLOT_READY;
	drain(z);
	pthread_mutex_unlock(&z->mu);
	return TRAWL_OK;
}

enum trawl_status emu_zpool_take(struct emu_zpool *z, char **buf, size_t len, size_t cap,
				 struct trawl_error *err)
{
	pthread_mutex_lock(&z->mu);
	struct zslot *s = &z->slots[z->next_seq % z->nslots];
	while (s->state != SLOT_FREE && z->st == TRAWL_OK)
		pthread_cond_wait(&z->turn, &z->mu);
	enum trawl_status st = z->st;
	if (st) {
		if (err)
			*err = z->err;
		pthread_mutex_unlock(&z->mu);
		return st;
	}
	/* every worker busy and a block waiting already: this one is
	 * compressed here while it is in the cache */
	if (z->idle == 0 && z->queued > 0)
		return keep_block(z, s, *buf, len, cap);
	pthread_mutex_unlock(&z->mu);
	/* to a worker: the slot's old block (when the size is right) becomes
	 * the caller's next one. A free slot at next_seq is only ours. */
	char *spare = s->in;
	if (!spare || s->cap != cap) {
		free(spare);
		s->in = NULL;
		spare = malloc(cap);
	}
	pthread_mutex_lock(&z->mu);
	if (!spare)
		return keep_block(z, s, *buf, len, cap);
	s->in = *buf;
	s->len = len;
	s->cap = cap;
	*buf = spare;
	s->seq = z->next_seq++;
	s->state = SLOT_QUEUED;
	z->queued++;
	pthread_cond_signal(&z->work);
	pthread_mutex_unlock(&z->mu);
	return TRAWL_OK;
}

enum trawl_status emu_zpool_close(struct emu_zpool *z, int finish, uint64_t *written,
				  struct trawl_error *err)
{
	pthread_mutex_lock(&z->mu);
	z->closing = 1;
	z->abandon = !finish;
	pthread_cond_broadcast(&z->work);
	pthread_mutex_unlock(&z->mu);
	for (int i = 0; i < z->nworkers; i++) {
		pthread_join(z->workers[i].tid, NULL);
		z->workers[i].started = 0;
	}
	pthread_mutex_lock(&z->mu);
	drain(z);
	pthread_mutex_unlock(&z->mu);
	/* no text at all: one empty frame, as the one-thread stream would end */
	if (finish && z->st == TRAWL_OK && z->frames == 0) {
		uint8_t frame[64];
		size_t n = ZSTD_compress2(z->own, frame, sizeof frame, "", 0);
		if (ZSTD_isError(n))
			z->st = trawl_error_set(&z->err, TRAWL_ERR_INTERNAL, "zstd compression failed: %s",
						ZSTD_getErrorName(n));
		else
			z->st = write_all(z, frame, n, &z->written, &z->err);
	}
	enum trawl_status st = z->st;
	if (st && err)
		*err = z->err;
	if (written)
		*written = z->written;
	pool_free(z);
	return st;
}
