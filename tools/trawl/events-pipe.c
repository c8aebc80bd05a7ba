/* events_run_all (events-run.h): the whole trace through the filter, the
 * activity engine and the caller's batch functions, on one thread or on
 * two. With two, a reader thread decodes, merges and filters batches (and
 * calls on_read) into a ring of PIPE_SLOTS of them, and the calling
 * thread takes them in order into the engine and on_fed: each side makes
 * the same calls in the same order as one thread does, so the output is
 * the same, with reading overlapped with the rest. The ring is bounded,
 * so memory does not grow with the trace.
 *
 * Without on_fed the engine is all the calling thread does, and it needs
 * only what trawl_act_pack keeps of an event: the reader then packs its
 * batches into the ring (32 bytes an event the engine uses, none for the
 * others) instead of handing over the whole events (168 bytes each),
 * as every byte of the ring moves from one core's cache to the other's. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "events-run.h"

#define PIPE_BATCH 256
#define PIPE_SLOTS 16
/* packed events a slot holds: a read batch is packed into it whole */
#define PACK_SLOT (4 * PIPE_BATCH)
/* pauses a side spins before it sleeps (a pause is 40-140 cycles, so up
 * to a few tenths of a millisecond): about as long as the other side takes
 * for a slot or two. A sleep costs the sleeper a wake-up and the wait for a
 * quarter ring; with 100 a balanced summary slept some 600 times in 36 M
 * events and took 2-5% more wall time (4% less CPU). Behind a Lua filter
 * (several times slower than the engine) the engine would spin through
 * most of every slot's wait, a third more CPU time: it spins SPINS_MIN,
 * then sleeps (it wakes with a quarter of the ring to go on with, so the
 * reader does not wait for it) */
#define SPINS 10000
#define SPINS_MIN 50
/* a sleeping side is woken when WAKE batches are there for it (the
 * engine) or free (the reader): the side that keeps the other waiting
 * still has the rest of the ring to go on with while the other wakes */
#define WAKE (PIPE_SLOTS / 4)

struct pipe_slot {
	struct trawl_sw_event ev[PIPE_BATCH];
	uint8_t keep[PIPE_BATCH], act[PIPE_BATCH];
	size_t n;
};

struct pack_slot {
	struct trawl_act_event ev[PACK_SLOT];
	size_t n;
};

/* head: batches the reader has filled; tail: those the engine is done
 * with. A side that cannot go on spins a little, then sleeps until a
 * quarter of the ring is there for it, so on a busy machine, where the
 * other side may wait for a cpu, the two wake each other once per
 * quarter ring rather than once per batch. */
struct pipe {
	struct events_run *r;
	events_batch_fn on_read, on_fed;
	void *ctx;
	struct pipe_slot *slot;      /* the ring; packed: the reader's batch */
	struct pack_slot *pack;      /* packed: the ring */
	_Alignas(64) atomic_size_t head;
	_Alignas(64) atomic_size_t tail;
	_Alignas(64) atomic_int done;
	atomic_int reader_sleeps, engine_sleeps;
	int reader_spins, engine_spins; /* pauses before a sleep (SPINS) */
	pthread_mutex_t mu;
	pthread_cond_t reader_cv, engine_cv;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static size_t filled(struct pipe *p)
{
	return atomic_load(&p->head) - atomic_load(&p->tail);
}

/* The reader, with the ring full: on when a slot is free. */
static void reader_wait(struct pipe *p)
{
	for (int i = 0; i < p->reader_spins && filled(p) == PIPE_SLOTS; i++)
		relax();
	if (filled(p) == PIPE_SLOTS) {
		pthread_mutex_lock(&p->mu);
		atomic_store(&p->reader_sleeps, 1);
		while (filled(p) > PIPE_SLOTS - WAKE)
			pthread_cond_wait(&p->reader_cv, &p->mu);
		atomic_store(&p->reader_sleeps, 0);
		pthread_mutex_unlock(&p->mu);
	}
}

/* The engine, with the ring empty: on when a batch is there or the
 * reader is done; 0 when nothing is left. */
static int engine_wait(struct pipe *p)
{
	for (int i = 0; i < p->engine_spins && !filled(p) && !atomic_load(&p->done); i++)
		relax();
	if (!filled(p) && !atomic_load(&p->done)) {
		pthread_mutex_lock(&p->mu);
		atomic_store(&p->engine_sleeps, 1);
		while (filled(p) < WAKE && !atomic_load(&p->done))
			pthread_cond_wait(&p->engine_cv, &p->mu);
		atomic_store(&p->engine_sleeps, 0);
		pthread_mutex_unlock(&p->mu);
	}
	return filled(p) != 0;
}

/* After a side moved head or tail (seq_cst, as is every access to these
 * counters and flags: each side then sees the other's sleep or the
 * other's move): wake the other if it sleeps and what it waits for came. */
static void wake(struct pipe *p, atomic_int *sleeps, pthread_cond_t *cv, int ready)
{
	if (!atomic_load(sleeps) || !ready)
		return;
	pthread_mutex_lock(&p->mu);
	pthread_cond_signal(cv);
	pthread_mutex_unlock(&p->mu);
}

/* The reader with packed events: batches are read into the one slot of
 * its own and packed into the ring's, which is handed over once it
 * cannot take another batch whole (or at the end). */
static void *reader_packed(void *arg)
{
	struct pipe *p = arg;
	struct pipe_slot *b = p->slot;
	size_t head = 0;
	struct pack_slot *s = &p->pack[0];
	s->n = 0;
	for (;;) {
		b->n = events_run_read(p->r, b->ev, b->keep, b->act, PIPE_BATCH);
		if (b->n) {
			if (p->on_read)
				p->on_read(p->ctx, b->ev, b->keep, b->n);
			s->n += trawl_act_pack(p->r->act, b->ev, b->n, b->act, s->ev + s->n);
		}
		if (b->n && s->n + PIPE_BATCH <= PACK_SLOT)
			continue;
		if (s->n) {
			atomic_store(&p->head, ++head);
			wake(p, &p->engine_sleeps, &p->engine_cv, filled(p) >= WAKE);
			if (filled(p) == PIPE_SLOTS)
				reader_wait(p);
			s = &p->pack[head % PIPE_SLOTS];
			s->n = 0;
		}
		if (!b->n)
			break;
	}
	atomic_store(&p->done, 1);
	wake(p, &p->engine_sleeps, &p->engine_cv, 1);
	return NULL;
}

static void *reader_main(void *arg)
{
	struct pipe *p = arg;
	for (size_t head = 0;; head++) {
		if (filled(p) == PIPE_SLOTS)
			reader_wait(p);
		struct pipe_slot *s = &p->slot[head % PIPE_SLOTS];
		s->n = events_run_read(p->r, s->ev, s->keep, s->act, PIPE_BATCH);
		if (!s->n)
			break;
		if (p->on_read)
			p->on_read(p->ctx, s->ev, s->keep, s->n);
		atomic_store(&p->head, head + 1);
		wake(p, &p->engine_sleeps, &p->engine_cv, filled(p) >= WAKE);
	}
	atomic_store(&p->done, 1);
	wake(p, &p->engine_sleeps, &p->engine_cv, 1);
	return NULL;
}

/* The events on this thread, as events_run_batch hands them out. */
static void run_one(struct events_run *r, events_batch_fn on_read, events_batch_fn on_fed, void *ctx)
{
	const struct trawl_sw_event *ev;
	const uint8_t *keep;
	for (size_t n; (n = events_run_batch(r, &ev, &keep));) {
		if (on_read)
			on_read(ctx, ev, keep, n);
		if (on_fed)
			on_fed(ctx, ev, keep, n);
	}
}

int events_threads_default(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n >= 2 ? 2 : 1;
}

void events_run_all(struct events_run *r, int threads, events_batch_fn on_read, events_batch_fn on_fed, void *ctx)
{
	struct pipe p = { .r = r, .on_read = on_read, .on_fed = on_fed, .ctx = ctx,
			  .reader_spins = SPINS, .engine_spins = r->scr ? SPINS_MIN : SPINS };
	pthread_t th;
	/* a script with on_event sees events one by one and drives the
	 * engine itself; one whose keep(e) is the filter runs on the reading
	 * thread, the only one that touches its Lua state, when the engine
	 * takes packed events (nothing on this thread calls the script: with
	 * on_fed, a listing's computed fields would); with neither engine nor
	 * on_fed there is nothing to hand over */
	int packed = !on_fed && r->act && trawl_act_packable(r->act);
	int script_here = r->scr && (!packed || trawl_script_has_on_event(r->scr));
	if (threads < 2 || script_here || (!on_fed && !r->act) ||
	    !(p.slot = malloc((packed ? 1 : PIPE_SLOTS) * sizeof *p.slot)) ||
	    (packed && !(p.pack = malloc(PIPE_SLOTS * sizeof *p.pack)))) {
		free(p.slot);
		run_one(r, on_read, on_fed, ctx);
		return;
	}
	atomic_init(&p.head, 0);
	atomic_init(&p.tail, 0);
	atomic_init(&p.done, 0);
	atomic_init(&p.reader_sleeps, 0);
	atomic_init(&p.engine_sleeps, 0);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.reader_cv, NULL);
	pthread_cond_init(&p.engine_cv, NULL);
	if (pthread_create(&th, NULL, packed ? reader_packed : reader_main, &p)) {
		pthread_cond_destroy(&p.engine_cv);
		pthread_cond_destroy(&p.reader_cv);
		pthread_mutex_destroy(&p.mu);
		free(p.pack);
		free(p.slot);
		run_one(r, on_read, on_fed, ctx);
		return;
	}
	for (size_t tail = 0; packed && (filled(&p) || engine_wait(&p)); tail++) {
		const struct pack_slot *s = &p.pack[tail % PIPE_SLOTS];
		trawl_act_feed_packed(r->act, s->ev, s->n);
		atomic_store(&p.tail, tail + 1);
		wake(&p, &p.reader_sleeps, &p.reader_cv, filled(&p) <= PIPE_SLOTS - WAKE);
	}
	for (size_t tail = 0; !packed && (filled(&p) || engine_wait(&p)); tail++) {
		struct pipe_slot *s = &p.slot[tail % PIPE_SLOTS];
		if (r->act)
			trawl_act_feed_batch(r->act, s->ev, s->n, s->act);
		if (on_fed)
			on_fed(ctx, s->ev, s->keep, s->n);
		atomic_store(&p.tail, tail + 1);
		wake(&p, &p.reader_sleeps, &p.reader_cv, filled(&p) <= PIPE_SLOTS - WAKE);
	}
	pthread_join(th, NULL);
	if (r->act && r->read)
		trawl_act_finish(r->act, r->last);
	pthread_cond_destroy(&p.engine_cv);
	pthread_cond_destroy(&p.reader_cv);
	pthread_mutex_destroy(&p.mu);
	free(p.pack);
	free(p.slot);
}
