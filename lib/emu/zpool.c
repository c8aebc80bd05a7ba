/* Compressing a .zst trace on threads of our own.
 *
 * Level 1 costs about seven times the CPU time of emulating and formatting
 * the trace, so on two cores the emulator can go at most twice as fast as
 * with inline compression, and only if nothing else is spent. zstd's own
 * workers (nbWorkers) copy all the input into their job buffers and overlap
 * the jobs; that cost about 11% more CPU, which on two cores is wall time.
 * Here the emulator's filled buffer itself is handed over (swapped for an
 * empty one) and each block becomes an independent frame, compressed in one
 * call on a context reused per thread: no copy, no shared window. The
 * frames are written in the order the blocks came, by whichever thread
 * compressed each, when its turn comes.
 *
 * Blocks live in a ring of slots; slot seq % nslots holds block seq from
 * the moment it is taken until its frame is written, so at most nslots
 * blocks are in flight and the memory stays bounded. The first error (a
 * compression or a write that failed) stops everything after it: later
 * frames are not written (the file keeps every frame before the failed one,
 * whole), and the next take and the close report it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "emu/zpool.h"

struct zslot {
	char *in;               /* the text, cap bytes of which len used */
	size_t len, cap;
	uint8_t *out;           /* its frame */
	size_t ocap;
	int busy;               /* taken and its frame not written yet */
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
	pthread_cond_t work;    /* a block was taken, or closing */
	pthread_cond_t turn;    /* a frame was written: next writer, free slot */
	struct zslot *slots;
	unsigned nslots;
	struct zworker *workers;
	int nworkers;
	uint64_t next_seq;      /* number the next block taken gets */
	uint64_t next_take;     /* next block a worker compresses */
	uint64_t next_write;    /* next block whose frame is written */
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

/* One block into its frame in s->out; *n its size. */
static enum trawl_status compress_block(ZSTD_CCtx *cc, struct zslot *s, size_t *n,
					struct trawl_error *err)
{
	size_t bound = ZSTD_compressBound(s->cap > s->len ? s->cap : s->len);
	if (s->ocap < bound) {
		free(s->out);
		s->ocap = 0;
		if (!(s->out = malloc(bound)))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory compressing the trace");
		s->ocap = bound;
	}
	*n = ZSTD_compress2(cc, s->out, s->ocap, s->in, s->len);
	if (ZSTD_isError(*n))
		return trawl_error_set(err, TRAWL_ERR_INTERNAL, "zstd compression failed: %s",
				       ZSTD_getErrorName(*n));
	return TRAWL_OK;
}

/* Take the next block, compress it outside the lock, wait for its turn,
 * write it (also outside the lock: only the holder of the turn writes). */
static void *worker_main(void *arg)
{
	struct zworker *w = arg;
	struct emu_zpool *z = w->z;
	struct trawl_error err;
	pthread_mutex_lock(&z->mu);
	for (;;) {
		while (z->next_take == z->next_seq && !z->closing)
			pthread_cond_wait(&z->work, &z->mu);
		if (z->next_take == z->next_seq)
			break;
		uint64_t seq = z->next_take++;
		struct zslot *s = &z->slots[seq % z->nslots];
		int skip = z->st != TRAWL_OK || z->abandon;
		pthread_mutex_unlock(&z->mu);

		enum trawl_status st = TRAWL_OK;
		size_t n = 0;
		if (!skip)
			st = compress_block(w->cc, s, &n, &err);
		pthread_mutex_lock(&z->mu);
		while (z->next_write != seq)
			pthread_cond_wait(&z->turn, &z->mu);
		if (st == TRAWL_OK && !skip && z->st == TRAWL_OK && !z->abandon) {
			uint64_t done = 0;
			pthread_mutex_unlock(&z->mu);
			st = write_all(z, s->out, n, &done, &err);
			pthread_mutex_lock(&z->mu);
			z->written += done;
			if (st == TRAWL_OK)
				z->frames++;
		}
		if (st != TRAWL_OK && z->st == TRAWL_OK) {
			z->st = st;
			z->err = err;
		}
		s->busy = 0;
		z->next_write++;
		pthread_cond_broadcast(&z->turn);
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
	/* two blocks per thread: one compressing, one waiting, so that the
	 * emulator rarely waits; and two for the emulator to be filling */
	z->nslots = 2 * (unsigned)threads + 2;
	z->slots = calloc(z->nslots, sizeof *z->slots);
	z->workers = calloc((size_t)threads, sizeof *z->workers);
	if (!z->slots || !z->workers) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto fail;
	}
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

enum trawl_status emu_zpool_take(struct emu_zpool *z, char **buf, size_t len, size_t cap,
				 struct trawl_error *err)
{
	pthread_mutex_lock(&z->mu);
	struct zslot *s = &z->slots[z->next_seq % z->nslots];
	while (s->busy && z->st == TRAWL_OK)
		pthread_cond_wait(&z->turn, &z->mu);
	enum trawl_status st = z->st;
	if (st && err)
		*err = z->err;
	pthread_mutex_unlock(&z->mu);
	if (st)
		return st;
	/* the slot is free and stays so: only this thread fills slots. Its old
	 * block becomes the caller's next one when the size is right. */
	char *spare = s->in;
	if (!spare || s->cap != cap) {
		free(spare);
		s->in = NULL;
		if (!(spare = malloc(cap)))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory writing the trace");
	}
	s->in = *buf;
	s->len = len;
	s->cap = cap;
	*buf = spare;
	pthread_mutex_lock(&z->mu);
	s->busy = 1;
	z->next_seq++;
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
	/* no text at all: one empty frame, as the one-thread stream would end */
	if (finish && z->st == TRAWL_OK && z->frames == 0) {
		uint8_t frame[64];
		size_t n = ZSTD_compress2(z->workers[0].cc, frame, sizeof frame, "", 0);
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
