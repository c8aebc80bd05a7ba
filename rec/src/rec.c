/* The recorder: per-thread buffers, the slow path, triggers, flushing.
 *
 * Each thread owns a buffer of `nsub` sub-buffers (ring.c: mapped from
 * TRACE/.ring-N so that a crash keeps it; layout in trawl/rec-ring.h). The thread (producer)
 * writes 16-byte records into the open sub-buffer through the TLS cursor;
 * the flusher (consumer: background thread, trawl_rec_flush, exit) turns
 * what it finds into CTF packets. Nothing on the producer side takes a lock
 * except registering a thread and its exit.
 *
 * Record layout in memory (16-byte slots, ticks stored last):
 *   fast:  [ticks][subsys<<48 | event<<32 | arg]
 *   typed: [ticks][1<<63 | subsys<<48 | event<<32 | n][n field slots][pad to 16]
 *
 * Per sub-buffer header (struct trawl_ring_sub), written by the producer:
 *   seq    2k+1 while sub-buffer number k is open, 2k+2 once closed (a
 *          seqlock: a consumer that sees it change while copying drops the
 *          copy, which is how overwrite mode stays safe)
 *   ready  k once ev_begin/cpu/open_ticks are valid for number k
 *   used   bytes written (valid when closed)
 *   ev_begin events recorded in this thread before number k (for counting
 *          sub-buffers that were overwritten before anyone read them)
 *
 * After every packet it writes, the consumer notes in the ring's journal
 * how far stream-N goes, so that `trawl events` can add exactly the rest.
 */
#include "rec-int.h"
#include "trawl/rec.h"
#include "trawl/rec-proto.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

uint8_t trawl_rec_sub_mode[TRAWL_REC_MAX_SUBSYS];
__thread struct trawl_rec_tls trawl_rec_tls_ __attribute__((tls_model("initial-exec")));

#define TYPED_FLAG (1ull << 63)

struct rec_thread {
	struct rec_thread *next;
	struct trawl_rec_tls *tls;   /* NULL once the thread has exited */
	uint32_t stream_id;
	uint32_t tid;
	struct rec_ring ring;
	uint8_t *mem;                /* ring.data, NULL when there is no buffer */
	struct trawl_ring_sub *subs; /* ring.subs */
	size_t sub_size;
	uint32_t nsub;
	int dead;
	/* producer side */
	uint64_t cur;                /* number of the open sub-buffer */
	int open;
	uint64_t recorded;           /* events in closed sub-buffers */
	uint64_t extra_pairs;        /* extra 16-byte slots of typed events in the open one */
	uint64_t produced;           /* closed sub-buffers (atomic) */
	/* consumer side */
	uint64_t consumed;           /* next sub-buffer to read (atomic) */
	uint32_t coff;               /* bytes of it already read */
	uint64_t expected;           /* ev_begin the next sub-buffer should have */
	uint64_t gaps;               /* events in overwritten sub-buffers */
	uint64_t delivered;
	uint64_t packet_seq;
	uint64_t last_ts;
	uint64_t last_reported;      /* lost count in the last packet written */
	uint32_t last_cpu;
	uint32_t ccpu;               /* cpu of the consumer's place in its sub-buffer
				      * (its header's, then cpu records') */
	int fd;                      /* stream file, -1 until the first packet */
	uint64_t file_size;          /* bytes in it */
	uint64_t j_consumed, j_coff; /* where reading stands once the packet being written is in */
};

enum rec_state { ST_IDLE, ST_WAITING, ST_ACTIVE, ST_STOPPED };

static struct {
	pthread_mutex_t reg_mu;      /* thread list, tls pointers */
	pthread_mutex_t flush_mu;    /* one consumer at a time, sinks */
	pthread_mutex_t meta_mu;     /* meta classes */
	pthread_mutex_t wake_mu;
	pthread_cond_t wake;
	int wake_pending;
	int quit;
	int running;
	int state;
	struct trawl_rec_config cfg;
	char out_dir[1024];
	char stream_addr[256];
	int dir_made;
	uint8_t enabled[TRAWL_REC_MAX_SUBSYS];
	struct rec_thread *threads;
	uint32_t nthreads;
	pthread_t flusher;
	int have_flusher;
	uint64_t active_since_ns;
	/* clock */
	uint64_t tsc0, mono0;
	double ns_per_tick;
	/* output */
	struct trawl_ctf_meta meta;
	int meta_dirty;
	size_t meta_streamed;        /* classes already sent to the listener */
	struct rec_stream *stream;
	int stream_failed;
	uint8_t *scratch;
	size_t scratch_size;
	struct trawl_ctf_packet pkt;
	uint64_t packets, bytes, recorded_total;
	uint64_t lost_dead;          /* lost events of threads already freed */
	pthread_key_t key;
	int key_made;
	int atexit_done;
	int autostart;               /* 1: the environment asks for tracing and
	                                nobody called trawl_rec_start yet */
	int use_rings;               /* buffers are files in out_dir */
	struct trawl_ring_head ring_tmpl; /* identity and clock of every ring */
	volatile sig_atomic_t crashing; /* a fatal-signal handler is flushing */
	int atfork_done;
} R = {
	.reg_mu = PTHREAD_MUTEX_INITIALIZER,
	.flush_mu = PTHREAD_MUTEX_INITIALIZER,
	.meta_mu = PTHREAD_MUTEX_INITIALIZER,
	.wake_mu = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
};

static void write_meta_if_dirty(int force);

static uint64_t mono_ns(int clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t trawl_rec_ticks_fallback(void)
{
	return mono_ns(CLOCK_MONOTONIC);
}

/* One (ticks, monotonic ns) pair: the clock read bracketed by two counter
 * reads, the tightest of several tries (a preemption between the reads
 * would skew the pair). */
static void clock_pair(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 16; i++) {
		uint64_t a = trawl_rec_ticks(), m = mono_ns(CLOCK_MONOTONIC), b = trawl_rec_ticks();
		if (b - a < best) {
			best = b - a;
			*ticks = a + (b - a) / 2;
			*ns = m;
		}
	}
}

static int64_t test_clock_skew(void);

/* Tie the cycle counter to CLOCK_MONOTONIC: two pairs 20 ms apart on x86
 * (no architectural frequency register), CNTFRQ on AArch64. */
static void calibrate(void)
{
	clock_pair(&R.tsc0, &R.mono0);
#if defined(__aarch64__)
	uint64_t frq;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frq));
	R.ns_per_tick = frq ? 1e9 / (double)frq : 1.0;
#elif defined(__x86_64__) || defined(__i386__)
	uint64_t m1, t1;
	struct timespec nap = { 0, 20 * 1000000L };
	nanosleep(&nap, NULL);
	clock_pair(&t1, &m1);
	R.ns_per_tick = t1 > R.tsc0 && m1 > R.mono0 ? (double)(m1 - R.mono0) / (double)(t1 - R.tsc0) : 1.0;
#else
	R.ns_per_tick = 1.0;
#endif
	uint64_t rt = mono_ns(CLOCK_REALTIME), mo = mono_ns(CLOCK_MONOTONIC);
	uint64_t off = rt > mo ? rt - mo : 0;
	R.mono0 += (uint64_t)test_clock_skew();
	R.meta.clock_offset_s = (int64_t)(off / 1000000000ull);
	R.meta.clock_offset_ns = (uint32_t)(off % 1000000000ull);
}

static uint64_t ticks_to_ns(uint64_t t)
{
	double d = (double)(int64_t)(t - R.tsc0) * R.ns_per_tick;
	int64_t v = (int64_t)R.mono0 + (int64_t)d;
	return v < 0 ? 0 : (uint64_t)v;
}

uint64_t rec_clock_now(void)
{
	return ticks_to_ns(trawl_rec_ticks());
}

/* Test-only (docs/recorder.md): TRAWL_REC_TEST_CLOCK_SKEW_NS=N moves this
 * recorder's trace clock N ns ahead (negative: behind) while the wall-clock
 * offset it declares stays as measured, i.e. it acts like a machine whose
 * clock is off by N ns. The tests of `trawl listen`'s clock exchange use it. */
static int64_t test_clock_skew(void)
{
	const char *v = getenv("TRAWL_REC_TEST_CLOCK_SKEW_NS");
	return v && *v ? strtoll(v, NULL, 0) : 0;
}

/* ---- subsystem switches and triggers ---- */

static int trig_match(const struct trawl_rec_trigger *t, uint16_t s, uint16_t e, uint32_t arg)
{
	return t->set && t->subsys == s && t->event == e && (!t->match_arg || t->arg == arg);
}

/* Recompute every switch from the state; callers hold reg_mu. */
static void apply_modes(void)
{
	int st = __atomic_load_n(&R.state, __ATOMIC_ACQUIRE);
	for (uint32_t s = 0; s < TRAWL_REC_MAX_SUBSYS; s++) {
		uint8_t m = 0;
		if (st == ST_ACTIVE)
			m = R.enabled[s] ? 1 : 0;
		if (st == ST_WAITING && R.cfg.start.set && R.cfg.start.subsys == s)
			m = 2;
		if (st == ST_ACTIVE && R.cfg.stop.set && R.cfg.stop.subsys == s)
			m = 2;
		if (st == ST_IDLE && __atomic_load_n(&R.autostart, __ATOMIC_RELAXED) == 1)
			m = 2;
		__atomic_store_n(&trawl_rec_sub_mode[s], m, __ATOMIC_RELAXED);
	}
}

int trawl_rec_enable(uint16_t subsys, int on)
{
	if (subsys >= TRAWL_REC_MAX_SUBSYS)
		return -EINVAL;
	pthread_mutex_lock(&R.reg_mu);
	R.enabled[subsys] = on ? 1 : 0;
	apply_modes();
	pthread_mutex_unlock(&R.reg_mu);
	return 0;
}

void trawl_rec_enable_all(int on)
{
	pthread_mutex_lock(&R.reg_mu);
	memset(R.enabled, on ? 1 : 0, sizeof R.enabled);
	apply_modes();
	pthread_mutex_unlock(&R.reg_mu);
}

static void set_state(int from, int to)
{
	pthread_mutex_lock(&R.reg_mu);
	if (R.state == from) {
		__atomic_store_n(&R.state, to, __ATOMIC_RELEASE);
		if (to == ST_ACTIVE)
			R.active_since_ns = mono_ns(CLOCK_MONOTONIC);
		apply_modes();
	}
	pthread_mutex_unlock(&R.reg_mu);
}

static void wake_flusher(void)
{
	pthread_mutex_lock(&R.wake_mu);
	R.wake_pending = 1;
	pthread_cond_signal(&R.wake);
	pthread_mutex_unlock(&R.wake_mu);
}

/* ---- producer slow path ---- */

static void thread_gone(void *arg);

/* Sub-buffer size for the configuration: whole records, 256 B..2 GiB. */
static size_t sub_size_for(const struct trawl_rec_config *c, uint32_t *nsub)
{
	*nsub = c->subbuffers < 2 ? 2 : c->subbuffers;
	size_t sub = (c->buffer_bytes / *nsub) & ~(size_t)15;
	if (sub < 256)
		sub = 256;
	if (sub > 0x7fffffff)
		sub = 0x7ffffff0;
	return sub;
}

/* Give t a fresh buffer for the current trace: a ring file in the trace
 * directory when writing one, else anonymous memory. */
static int thread_ring_make(struct rec_thread *t)
{
	uint32_t nsub;
	size_t sub = sub_size_for(&R.cfg, &nsub);
	struct trawl_ring_head tmpl = R.ring_tmpl;
	tmpl.tid = t->tid;
	const char *dir = R.use_rings ? R.out_dir : NULL;
	if (rec_ring_create(&t->ring, dir, t->stream_id, nsub, sub, &tmpl) != 0) {
		t->mem = NULL;
		t->subs = NULL;
		return -ENOMEM;
	}
	t->mem = t->ring.data;
	t->subs = t->ring.subs;
	t->sub_size = sub;
	t->nsub = nsub;
	return 0;
}

static struct rec_thread *thread_register(void)
{
	struct rec_thread *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->fd = -1;
	t->ring.fd = -1;
	t->tid = (uint32_t)syscall(SYS_gettid);
	pthread_mutex_lock(&R.reg_mu);
	t->stream_id = R.nthreads++;
	pthread_mutex_unlock(&R.reg_mu);
	if (thread_ring_make(t) != 0) {
		free(t);
		return NULL;
	}
	t->tls = &trawl_rec_tls_;
	pthread_mutex_lock(&R.reg_mu);
	t->next = R.threads;
	R.threads = t;
	pthread_mutex_unlock(&R.reg_mu);
	trawl_rec_tls_.thread = t;
	if (R.key_made)
		pthread_setspecific(R.key, t);
	return t;
}

static void sub_close(struct rec_thread *t)
{
	if (!t->open)
		return;
	struct trawl_ring_sub *h = &t->subs[t->cur % t->nsub];
	uint8_t *base = t->mem + (t->cur % t->nsub) * t->sub_size;
	size_t used = (size_t)((uint8_t *)trawl_rec_tls_.pos - base);
	if (t->tls != &trawl_rec_tls_ || used > t->sub_size)
		used = 0;
	h->used = (uint32_t)used;
	t->recorded += used / 16 - t->extra_pairs;
	__atomic_store_n(&h->seq, 2 * t->cur + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&t->produced, t->cur + 1, __ATOMIC_RELEASE);
	t->open = 0;
	trawl_rec_tls_.end = trawl_rec_tls_.pos;
}

/* Open the next sub-buffer; 0 when the buffer is full in discard mode. */
static int sub_open(struct rec_thread *t)
{
	uint64_t k = t->open ? t->cur + 1 : __atomic_load_n(&t->produced, __ATOMIC_RELAXED);
	sub_close(t);
	uint64_t consumed = __atomic_load_n(&t->consumed, __ATOMIC_ACQUIRE);
	/* discard mode loses events when the reader falls behind, so call it
	 * early; a flight recorder (overwrite) is read on demand, periodically
	 * and at exit, and never needs to wake anyone */
	if (R.cfg.mode == TRAWL_REC_DISCARD && k - consumed >= t->nsub / 2)
		wake_flusher();
	if (R.cfg.mode == TRAWL_REC_DISCARD && k - consumed >= t->nsub)
		return 0;
	struct trawl_ring_sub *h = &t->subs[k % t->nsub];
	uint8_t *base = t->mem + (k % t->nsub) * t->sub_size;
	__atomic_store_n(&h->seq, 2 * k + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* a reader of the ring after a crash ends the open sub-buffer at the
	 * first record older than open_ticks; typed events' field values from
	 * the last lap could pass for ticks, so they go */
	if (h->flags & TRAWL_RING_SUB_TYPED) {
		memset(base, 0, t->sub_size);
		h->flags = 0;
	}
	h->ev_begin = t->recorded;
	int cpu = sched_getcpu();
#if TRAWL_REC_TRACKS_CPU
	/* the processor as the fast path sees it, so its first event does not
	 * take the slow path to say where it is */
	uint32_t rc = trawl_rec_cpu();
	trawl_rec_tls_.cpu = rc;
	if (rc < 0x7fffff)
		cpu = (int)rc;
#endif
	h->cpu = cpu < 0 ? 0 : (uint32_t)cpu;
	h->open_ticks = trawl_rec_ticks();
	__atomic_store_n(&h->ready, k, __ATOMIC_RELEASE);
	t->cur = k;
	t->open = 1;
	t->extra_pairs = 0;
	trawl_rec_tls_.end = (uint64_t *)(base + t->sub_size);
	__atomic_store_n(&trawl_rec_tls_.pos, (uint64_t *)base, __ATOMIC_RELEASE);
	return 1;
}

/* Room for `slots` 8-byte slots (even) in this thread's buffer, or NULL
 * when the event has to be dropped (counted). */
static uint64_t *reserve(size_t slots)
{
	struct rec_thread *t = trawl_rec_tls_.thread;
	if (!t && !(t = thread_register()))
		return NULL;
	if (t->dead || !t->mem)
		return NULL;
	if (!t->open || (size_t)((uint8_t *)trawl_rec_tls_.end - (uint8_t *)trawl_rec_tls_.pos) < slots * 8) {
		if (slots * 8 > t->sub_size || !sub_open(t)) {
			__atomic_fetch_add(&t->ring.head->dropped, 1, __ATOMIC_RELAXED);
			return NULL;
		}
	}
	return trawl_rec_tls_.pos;
}

/* Room for an event of `slots` slots, after a cpu record when the thread
 * runs on another processor than its last record said (the fast path
 * comes here when it notices). The cpu record's ticks are read after the
 * room is made: a new sub-buffer's open_ticks must not be later than the
 * first record in it. It is no event: it counts as an extra pair. */
static uint64_t *reserve_event(size_t slots)
{
#if TRAWL_REC_TRACKS_CPU
	uint32_t cpu = trawl_rec_cpu();
	int moved = cpu != trawl_rec_tls_.cpu;
	uint64_t *p = reserve(slots + (moved ? 2 : 0));
	if (!p || cpu == trawl_rec_tls_.cpu) /* a new sub-buffer says where it is */
		return p;
	struct rec_thread *t = trawl_rec_tls_.thread;
	uint64_t ts = trawl_rec_ticks();
	p[1] = TRAWL_RING_CPU_MARK | ((uint64_t)(cpu & 0x7fffff) << 8);
	__atomic_signal_fence(__ATOMIC_RELEASE); /* ticks last: see rec-ring.h */
	p[0] = ts;
	t->extra_pairs++;
	trawl_rec_tls_.cpu = cpu;
	__atomic_store_n(&trawl_rec_tls_.pos, p + 2, __ATOMIC_RELEASE);
	return p + 2;
#else
	return reserve(slots);
#endif
}

/* Decide whether an event reaching the slow path is recorded, firing
 * triggers on the way. */
static int slow_should_record(uint16_t subsys, uint16_t event, uint32_t arg, int *stop_after)
{
	*stop_after = 0;
	uint8_t m = __atomic_load_n(&trawl_rec_sub_mode[subsys], __ATOMIC_RELAXED);
	if (m == 0)
		return 0;
	if (__atomic_load_n(&R.autostart, __ATOMIC_ACQUIRE)) {
		/* first event of a program traced through the environment only */
		int one = 1;
		if (__atomic_compare_exchange_n(&R.autostart, &one, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			if (trawl_rec_start(NULL) != 0)
				trawl_rec_enable_all(0);
			__atomic_store_n(&R.autostart, 0, __ATOMIC_RELEASE);
		} else {
			while (__atomic_load_n(&R.autostart, __ATOMIC_ACQUIRE) == 2)
				sched_yield();
		}
		m = __atomic_load_n(&trawl_rec_sub_mode[subsys], __ATOMIC_RELAXED);
		if (m == 0)
			return 0;
	}
	if (m == 1)
		return 1;
	int st = __atomic_load_n(&R.state, __ATOMIC_ACQUIRE);
	if (st == ST_WAITING) {
		if (!trig_match(&R.cfg.start, subsys, event, arg))
			return 0;
		set_state(ST_WAITING, ST_ACTIVE);
		if (trig_match(&R.cfg.stop, subsys, event, arg))
			return 1; /* the start event itself is not also a stop */
		return 1;
	}
	if (st == ST_ACTIVE) {
		if (trig_match(&R.cfg.stop, subsys, event, arg)) {
			*stop_after = 1;
			return 1;
		}
		return R.enabled[subsys];
	}
	return 0;
}

void trawl_rec_emit_slow(uint16_t subsys, uint16_t event, uint32_t arg)
{
	subsys &= TRAWL_REC_MAX_SUBSYS - 1;
	int stop_after;
	if (!slow_should_record(subsys, event, arg, &stop_after))
		return;
	uint64_t *p = reserve_event(2);
	if (p) {
		uint64_t ts = trawl_rec_ticks();
		p[1] = ((uint64_t)subsys << 48) | ((uint64_t)event << 32) | arg;
		__atomic_signal_fence(__ATOMIC_RELEASE); /* ticks last: see rec-ring.h */
		p[0] = ts;
		__atomic_store_n(&trawl_rec_tls_.pos, p + 2, __ATOMIC_RELEASE);
	}
	if (stop_after) {
		set_state(ST_ACTIVE, ST_STOPPED);
		wake_flusher();
	}
}

void trawl_rec_emit_fields(uint16_t subsys, uint16_t event, const uint64_t *fields, unsigned n)
{
	subsys &= TRAWL_REC_MAX_SUBSYS - 1;
	if (n > TRAWL_REC_MAX_FIELDS)
		n = TRAWL_REC_MAX_FIELDS;
	int stop_after;
	uint32_t arg0 = n ? (uint32_t)fields[0] : 0;
	if (!slow_should_record(subsys, event, arg0, &stop_after))
		return;
	size_t slots = 2 + n + (n & 1);
	uint64_t *p = reserve_event(slots);
	if (p) {
		uint64_t ts = trawl_rec_ticks();
		struct rec_thread *t = trawl_rec_tls_.thread;
		t->subs[t->cur % t->nsub].flags |= TRAWL_RING_SUB_TYPED;
		p[1] = TYPED_FLAG | ((uint64_t)subsys << 48) | ((uint64_t)event << 32) | n;
		for (unsigned i = 0; i < n; i++)
			p[2 + i] = fields[i];
		if (n & 1)
			p[2 + n] = 0;
		__atomic_signal_fence(__ATOMIC_RELEASE);
		p[0] = ts;
		t->extra_pairs += (slots - 2) / 2;
		__atomic_store_n(&trawl_rec_tls_.pos, p + slots, __ATOMIC_RELEASE);
	}
	if (stop_after) {
		set_state(ST_ACTIVE, ST_STOPPED);
		wake_flusher();
	}
}

/* pthread key destructor: the thread is exiting; close its sub-buffer so
 * the flusher can take everything, and forget its TLS. */
static void thread_gone(void *arg)
{
	struct rec_thread *t = arg;
	if (!t || trawl_rec_tls_.thread != t)
		return;
	pthread_mutex_lock(&R.reg_mu);
	sub_close(t);
	t->tls = NULL;
	t->dead = 1;
	pthread_mutex_unlock(&R.reg_mu);
	trawl_rec_tls_.thread = NULL;
	trawl_rec_tls_.pos = trawl_rec_tls_.end = NULL;
}

/* ---- definitions ---- */

static void class_from_def(struct trawl_ctf_class *c, const struct trawl_rec_event_def *d)
{
	memset(c, 0, sizeof *c);
	c->id = ((uint32_t)(d->subsys & (TRAWL_REC_MAX_SUBSYS - 1)) << 16) | d->event;
	snprintf(c->name, sizeof c->name, "%s:%s", d->subsys_name ? d->subsys_name : "?",
		 d->name ? d->name : "?");
	if (d->nfields == 0) {
		c->nfields = 1;
		strcpy(c->fields[0].name, "arg");
		c->fields[0].type = TRAWL_REC_U32;
		return;
	}
	c->nfields = d->nfields > TRAWL_REC_MAX_FIELDS ? TRAWL_REC_MAX_FIELDS : d->nfields;
	for (unsigned i = 0; i < c->nfields; i++) {
		snprintf(c->fields[i].name, sizeof c->fields[i].name, "%s", d->fields[i].name);
		c->fields[i].type = (uint8_t)d->fields[i].type;
		if (!trawl_ctf_type_size(c->fields[i].type))
			c->fields[i].type = TRAWL_REC_U64;
	}
}

int trawl_rec_define(const struct trawl_rec_event_def *defs, size_t n)
{
	int rc = 0;
	pthread_mutex_lock(&R.meta_mu);
	for (size_t i = 0; i < n; i++) {
		struct trawl_ctf_class c;
		class_from_def(&c, &defs[i]);
		int r = trawl_ctf_meta_add(&R.meta, &c);
		if (r < 0)
			rc = r;
		else if (r > 0)
			R.meta_dirty = 1;
	}
	pthread_mutex_unlock(&R.meta_mu);
	/* names registered while recording reach the file at once, so that
	 * a crash does not leave their events unnamed */
	if (R.running && R.use_rings)
		write_meta_if_dirty(0);
	return rc;
}

/* Class for an id seen in a buffer, made up when nobody defined it. */
static const struct trawl_ctf_class *class_for(uint32_t id, int typed, unsigned n)
{
	const struct trawl_ctf_class *c = trawl_ctf_meta_find(&R.meta, id);
	if (c)
		return c;
	struct trawl_ctf_class g;
	memset(&g, 0, sizeof g);
	g.id = id;
	snprintf(g.name, sizeof g.name, "subsys%u:event%u", id >> 16, id & 0xffff);
	if (!typed) {
		g.nfields = 1;
		strcpy(g.fields[0].name, "arg");
		g.fields[0].type = TRAWL_REC_U32;
	} else {
		g.nfields = n;
		for (unsigned i = 0; i < n; i++) {
			snprintf(g.fields[i].name, sizeof g.fields[i].name, "f%u", i);
			g.fields[i].type = TRAWL_REC_U64;
		}
	}
	if (trawl_ctf_meta_add(&R.meta, &g) < 0)
		return NULL;
	R.meta_dirty = 1;
	return trawl_ctf_meta_find(&R.meta, id);
}

/* ---- consumer: buffers to packets to the sink ---- */

static int ensure_dir(void)
{
	if (R.dir_made)
		return 0;
	if (mkdir(R.out_dir, 0777) != 0 && errno != EEXIST)
		return -errno;
	R.dir_made = 1;
	return 0;
}

static int file_write_packet(struct rec_thread *t, uint32_t sid, const void *data, size_t len)
{
	int rc = ensure_dir();
	if (rc)
		return rc;
	int fd = t ? t->fd : -1;
	if (fd < 0) {
		char path[1200];
		snprintf(path, sizeof path, "%s/stream-%u", R.out_dir, sid);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
		if (fd < 0)
			return -errno;
		if (t) {
			struct stat st;
			t->fd = fd;
			t->file_size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
		}
	}
	const uint8_t *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	/* no half packet stays behind to hide the ones after it */
	if (rc && t && ftruncate(fd, (off_t)t->file_size) != 0)
		rc = -errno;
	if (!t)
		close(fd);
	return rc;
}

static void fallback_cb(void *ctx, uint32_t sid, const void *data, size_t len)
{
	(void)ctx;
	file_write_packet(NULL, sid, data, len);
}

/* The connection broke: keep every unacknowledged packet in the local
 * trace and write from now on to files. */
static void stream_fail(void)
{
	R.stream_failed = 1;
	pthread_mutex_lock(&R.meta_mu);
	R.meta_dirty = 1;
	pthread_mutex_unlock(&R.meta_mu);
	if (ensure_dir() == 0)
		rec_stream_unacked(R.stream, fallback_cb, NULL);
	rec_stream_close(R.stream);
	R.stream = NULL;
}

static void resend_classes_if_needed(void);

/* The journal entry for t once stream-N holds file_size bytes. */
static void journal_note(struct rec_thread *t, uint64_t file_size, int commit)
{
	struct trawl_ring_cursor c = {
		.consumed = t->j_consumed, .coff = t->j_coff, .expected = t->expected, .gaps = t->gaps,
		.packet_seq = t->packet_seq, .reported = t->last_reported, .file_size = file_size,
	};
	rec_ring_pending(&t->ring, &c);
	if (commit)
		rec_ring_commit(&t->ring);
}

static void sink_packet(struct rec_thread *t, const void *data, size_t len)
{
	R.packets++;
	R.bytes += len;
	if (R.stream) {
		/* the listener must know every class a packet uses first */
		resend_classes_if_needed();
		if (R.stream && rec_stream_packet(R.stream, t->stream_id, data, len) == 0)
			return;
		if (R.stream)
			stream_fail();
	}
	/* pending before the write, committed after: a crash in between
	 * leaves an entry that the stream file's size confirms or not */
	journal_note(t, t->file_size + len, 0);
	if (file_write_packet(t, t->stream_id, data, len) == 0) {
		t->file_size += len;
		rec_ring_commit(&t->ring);
	} else {
		journal_note(t, t->file_size, 1);
	}
}

static uint64_t thread_lost(const struct rec_thread *t)
{
	return t->gaps + (t->ring.head ? __atomic_load_n(&t->ring.head->dropped, __ATOMIC_RELAXED) : 0);
}

/* Finish the packet being built and send it on (metadata first when a
 * class was added: a reader must never meet an event whose class the
 * metadata lacks). */
static void ship(struct rec_thread *t, struct trawl_ctf_packet *p, uint32_t cpu)
{
	if (R.meta_dirty && !R.crashing)
		write_meta_if_dirty(0);
	if (p->nevents == 0)
		return;
	t->delivered += p->nevents;
	R.recorded_total += p->nevents;
	t->last_ts = p->ts_end;
	t->last_cpu = cpu;
	t->last_reported = thread_lost(t);
	trawl_ctf_packet_finish(p, t->packet_seq++, t->last_reported, cpu, t->tid);
	sink_packet(t, p->buf, p->len);
}

/* A cpu record (rec-ring.h): the events before it go out as one packet,
 * those after it in another with the new cpu, so a CTF packet (one cpu_id)
 * stays right when its thread migrates. The journal of the first packet
 * says reading stands at the cpu record (subno, at), not at the end of
 * the chunk, so a crash between the two loses neither. 0, or -1 when the
 * new packet has no room (it needs less than the one it follows). */
static int cpu_change(struct rec_thread *t, struct trawl_ctf_packet *p, uint32_t *cpu, uint64_t w,
		      size_t rest, uint64_t subno, size_t at)
{
	if (p->nevents) {
		uint64_t jc = t->j_consumed, jo = t->j_coff;
		t->j_consumed = subno;
		t->j_coff = at;
		if (!R.crashing)
			pthread_mutex_unlock(&R.meta_mu);
		ship(t, p, *cpu);
		t->j_consumed = jc;
		t->j_coff = jo;
		if (!R.crashing)
			pthread_mutex_lock(&R.meta_mu);
		trawl_ctf_packet_begin(p);
		if (p->len != TRAWL_CTF_PREAMBLE || trawl_ctf_packet_reserve(p, rest) != 0)
			return -1;
	}
	*cpu = t->ccpu = TRAWL_RING_CPU_OF(w);
	return 0;
}

/* Encode one chunk of raw records (whole records, bytes from..from+len of
 * sub-buffer number k) as a packet. Returns the bytes taken: all of them,
 * except in a crash flush, which stops before an event that would need a
 * new class (no allocation in a signal handler); the ring keeps the rest.
 * subno: the sub-buffer's number, for the journal. */
static size_t deliver(struct rec_thread *t, const uint8_t *data, size_t len, uint64_t subno, size_t from,
		      uint64_t ev_begin, uint32_t cpu)
{
	if (from == 0) {
		if (ev_begin > t->expected)
			t->gaps += ev_begin - t->expected;
		t->expected = ev_begin;
		t->ccpu = cpu;
	} else {
		cpu = t->ccpu; /* a cpu record earlier in this sub-buffer holds */
	}
	struct trawl_ctf_packet *p = &R.pkt;
	trawl_ctf_packet_begin(p);
	/* every record encodes to no more bytes than it takes in memory */
	if (R.crashing && p->cap < TRAWL_CTF_PREAMBLE + len)
		return 0;
	if (p->len != TRAWL_CTF_PREAMBLE || trawl_ctf_packet_reserve(p, len) != 0)
		return len;
	const uint64_t *s = (const uint64_t *)data;
	size_t nslots = len / 8, i = 0;
	uint64_t vals[TRAWL_REC_MAX_FIELDS];
	uint32_t last_id = UINT32_MAX;
	const struct trawl_ctf_class *c = NULL;
	int plain = 0;               /* c is one u32 field: write it directly */
	int held = 0;                /* stopped short for the crash flush */
	if (!R.crashing)
		pthread_mutex_lock(&R.meta_mu);
	while (i + 2 <= nslots) {
		uint64_t ts = ticks_to_ns(s[i]), w = s[i + 1];
		if (TRAWL_RING_IS_CPU(w)) {
			if (cpu_change(t, p, &cpu, w, len - i * 8, subno, from + i * 8) != 0)
				break;
			i += 2;
			continue;
		}
		int typed = (w & TYPED_FLAG) != 0;
		uint32_t id = (uint32_t)((w >> 32) & 0x7fffffff);
		unsigned n = typed ? (unsigned)(w & 0xff) : 0;
		size_t slots = typed ? 2 + n + (n & 1) : 2;
		if (n > TRAWL_REC_MAX_FIELDS || i + slots > nslots)
			break; /* cannot happen with our producer; stop rather than misread */
		if (id != last_id || typed) {
			size_t before = R.meta.nclasses;
			if (R.crashing && !trawl_ctf_meta_find(&R.meta, id)) {
				held = 1;
				break;
			}
			c = class_for(id, typed, n);
			if (R.meta.nclasses != before)
				last_id = UINT32_MAX; /* classes moved: no stale pointer */
			else
				last_id = id;
			plain = c && c->nfields == 1 && c->fields[0].type == TRAWL_REC_U32;
		}
		if (c && !typed && plain) {
			uint8_t *q = p->buf + p->len;
			uint32_t arg = (uint32_t)w;
			memcpy(q, &id, 4);
			memcpy(q + 4, &ts, 8);
			memcpy(q + 12, &arg, 4);
			p->len += 16;
			if (p->nevents++ == 0)
				p->ts_begin = ts;
			p->ts_end = ts;
		} else if (c) {
			unsigned k = n < c->nfields ? n : c->nfields;
			if (typed)
				memcpy(vals, &s[i + 2], k * 8);
			else
				vals[0] = (uint32_t)w, k = 1;
			for (unsigned f = k; f < c->nfields; f++)
				vals[f] = 0;
			trawl_ctf_packet_event(p, c, ts, vals);
		}
		t->expected++;
		i += slots;
	}
	if (!R.crashing)
		pthread_mutex_unlock(&R.meta_mu);
	size_t took = held ? i * 8 : len;
	if (held) {
		t->j_consumed = subno;
		t->j_coff = from + took;
	}
	ship(t, p, cpu);
	return took;
}

/* The consumer half of the seqlock (header comment): copy into scratch, read
 * seq again and drop the copy if it moved, so overwrite mode never delivers a
 * half-overwritten record. The open sub-buffer is read up to the producer's
 * TLS cursor and resumed from coff; the guard bounds the loop if the producer
 * keeps lapping us, and in a crash flush nothing is locked or allocated. */
static void consume_thread(struct rec_thread *t)
{
	if (!t->mem)
		return;
	if (R.scratch_size < t->sub_size) {
		if (R.crashing)
			return;
		uint8_t *n = realloc(R.scratch, t->sub_size);
		if (!n)
			return;
		R.scratch = n;
		R.scratch_size = t->sub_size;
	}
	for (int guard = 0; guard < 1000000; guard++) {
		uint64_t k = __atomic_load_n(&t->consumed, __ATOMIC_RELAXED);
		struct trawl_ring_sub *h = &t->subs[k % t->nsub];
		uint8_t *base = t->mem + (k % t->nsub) * t->sub_size;
		uint64_t s1 = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
		if (s1 < 2 * k + 1)
			break;
		if (s1 > 2 * k + 2) { /* overwritten before we got to it */
			__atomic_store_n(&t->consumed, k + 1, __ATOMIC_RELEASE);
			t->coff = 0;
			continue;
		}
		size_t end;
		if (s1 == 2 * k + 2) {
			end = h->used;
		} else {
			if (__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) != k)
				break;
			if (!R.crashing) /* the crash flush holds it already */
				pthread_mutex_lock(&R.reg_mu);
			uint8_t *pos = t->tls ? (uint8_t *)__atomic_load_n(&t->tls->pos, __ATOMIC_ACQUIRE) : NULL;
			if (!R.crashing)
				pthread_mutex_unlock(&R.reg_mu);
			if (!pos || pos < base || pos > base + t->sub_size) {
				if (__atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) != s1)
					continue;
				break;
			}
			end = (size_t)(pos - base);
		}
		uint64_t evb = h->ev_begin;
		uint32_t cpu = h->cpu;
		size_t from = t->coff;
		if (end > t->sub_size)
			end = t->sub_size;
		if (end > from)
			memcpy(R.scratch, base + from, end - from);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint64_t s2 = __atomic_load_n(&h->seq, __ATOMIC_RELAXED);
		if (s2 != s1) {
			if (s2 == 2 * k + 2)
				continue; /* closed meanwhile: read again up to `used` */
			__atomic_store_n(&t->consumed, k + 1, __ATOMIC_RELEASE);
			t->coff = 0;
			continue;
		}
		int closed = s1 == 2 * k + 2;
		t->j_consumed = closed ? k + 1 : k;
		t->j_coff = closed ? 0 : end;
		if (end > from) {
			size_t took = deliver(t, R.scratch, end - from, k, from, evb, cpu);
			if (took < end - from) { /* crash flush: the ring keeps the rest */
				t->coff = (uint32_t)(from + took);
				break;
			}
		} else if (from == 0 && evb > t->expected) {
			t->gaps += evb - t->expected;
			t->expected = evb;
		}
		if (closed) {
			t->coff = 0;
			__atomic_store_n(&t->consumed, k + 1, __ATOMIC_RELEASE);
		} else {
			t->coff = (uint32_t)end;
			break;
		}
	}
}

/* A packet with no events whose only job is to carry the final lost
 * count (babeltrace2 and trawl report it from the packet context). */
static void report_trailing_loss(struct rec_thread *t)
{
	uint64_t lost = thread_lost(t);
	if (lost == 0 || t->last_reported == lost)
		return;
	struct trawl_ctf_packet *p = &R.pkt;
	trawl_ctf_packet_begin(p);
	if (p->len != TRAWL_CTF_PREAMBLE)
		return;
	p->ts_begin = p->ts_end = t->packet_seq ? t->last_ts : R.mono0;
	trawl_ctf_packet_finish(p, t->packet_seq++, lost, t->last_cpu, t->tid);
	t->last_reported = lost;
	t->j_consumed = __atomic_load_n(&t->consumed, __ATOMIC_RELAXED);
	t->j_coff = t->coff;
	sink_packet(t, p->buf, p->len);
}

static void resend_classes_if_needed(void)
{
	if (!R.stream)
		return;
	pthread_mutex_lock(&R.meta_mu);
	int ok = 1;
	if (R.meta_streamed != R.meta.nclasses) {
		/* classes are kept sorted, so a new one may sit anywhere: send
		 * them all again (the listener keeps the first of each id) */
		for (size_t i = 0; ok && i < R.meta.nclasses; i++)
			ok = rec_stream_class(R.stream, &R.meta.classes[i]) == 0;
		if (ok)
			R.meta_streamed = R.meta.nclasses;
	}
	pthread_mutex_unlock(&R.meta_mu);
	if (!ok)
		stream_fail();
}

static void write_meta_if_dirty(int force)
{
	if (R.stream)
		return;
	pthread_mutex_lock(&R.meta_mu);
	if ((R.meta_dirty || force) && ensure_dir() == 0 && trawl_ctf_meta_write(&R.meta, R.out_dir) == 0)
		R.meta_dirty = 0;
	pthread_mutex_unlock(&R.meta_mu);
}

/* Take everything the threads have written so far. `final`: also report
 * trailing losses (the recorder is stopping). */
static void flush_all(int final)
{
	pthread_mutex_lock(&R.flush_mu);
	pthread_mutex_lock(&R.reg_mu);
	struct rec_thread *list = R.threads;
	pthread_mutex_unlock(&R.reg_mu);
	for (struct rec_thread *t = list; t; t = t->next) {
		consume_thread(t);
		if (final || t->dead)
			report_trailing_loss(t);
	}
	resend_classes_if_needed();
	/* free threads that exited and were drained */
	pthread_mutex_lock(&R.reg_mu);
	for (struct rec_thread **pp = &R.threads; *pp;) {
		struct rec_thread *t = *pp;
		if (t->dead && __atomic_load_n(&t->consumed, __ATOMIC_ACQUIRE) >= t->produced) {
			*pp = t->next;
			R.lost_dead += thread_lost(t);
			if (t->fd >= 0)
				close(t->fd);
			rec_ring_release(&t->ring, 1); /* stream-N has it all */
			free(t);
		} else {
			pp = &t->next;
		}
	}
	pthread_mutex_unlock(&R.reg_mu);
	write_meta_if_dirty(final);
	pthread_mutex_unlock(&R.flush_mu);
}

/* From a fatal-signal handler (crash.c): write out what the threads have
 * written, if that is safe now. Every lock is only tried (the crashing
 * thread may hold one), nothing is allocated, metadata is not rewritten
 * (so events of classes it lacks stay in the ring), and a ring that
 * cannot be flushed keeps its events for `trawl events` anyway. */
int rec_crash_flush(int sig)
{
	if (!R.running || R.stream || R.crashing)
		return -EBUSY;
	/* give a flush in progress on another thread up to ~100 ms */
	int locked = 0;
	for (int i = 0; i < 100 && !locked; i++) {
		locked = pthread_mutex_trylock(&R.flush_mu) == 0;
		if (!locked) {
			struct timespec ms = { 0, 1000000L };
			nanosleep(&ms, NULL);
		}
	}
	if (!locked)
		return -EBUSY;
	int rc = -EBUSY;
	if (pthread_mutex_trylock(&R.reg_mu) == 0) {
		if (pthread_mutex_trylock(&R.meta_mu) == 0) {
			R.crashing = 1;
			for (struct rec_thread *t = R.threads; t; t = t->next)
				if (t->ring.head)
					t->ring.head->signal = (uint32_t)sig;
			if (!R.meta_dirty) {
				for (struct rec_thread *t = R.threads; t; t = t->next) {
					consume_thread(t);
					report_trailing_loss(t);
					if (t->ring.head)
						t->ring.head->flags |= TRAWL_RING_FLUSHED;
				}
				rc = 0;
			}
			R.crashing = 0;
			pthread_mutex_unlock(&R.meta_mu);
		}
		pthread_mutex_unlock(&R.reg_mu);
	}
	pthread_mutex_unlock(&R.flush_mu);
	return rc;
}

int trawl_rec_flush(void)
{
	if (!R.running)
		return -EINVAL;
	/* the caller's own open sub-buffer is read in place; nothing to close */
	flush_all(0);
	return 0;
}

static void stream_keepalive(void)
{
	pthread_mutex_lock(&R.flush_mu);
	if (R.stream && rec_stream_keepalive(R.stream) != 0)
		stream_fail();
	pthread_mutex_unlock(&R.flush_mu);
}

static void *flusher_main(void *arg)
{
	(void)arg;
	unsigned period = R.cfg.flush_ms ? R.cfg.flush_ms : 100;
	if (R.cfg.duration_ms && R.cfg.duration_ms < period)
		period = (unsigned)R.cfg.duration_ms;
	/* a streaming program wakes often enough to send its keepalives */
	if (R.stream && period > TRAWL_PROTO_KEEPALIVE_MS / 2)
		period = TRAWL_PROTO_KEEPALIVE_MS / 2;
	uint64_t last_flush = mono_ns(CLOCK_MONOTONIC);
	for (;;) {
		pthread_mutex_lock(&R.wake_mu);
		if (!R.wake_pending && !R.quit) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)period * 1000000ull;
			ts.tv_sec += (time_t)(ns / 1000000000ull);
			ts.tv_nsec = (long)(ns % 1000000000ull);
			pthread_cond_timedwait(&R.wake, &R.wake_mu, &ts);
		}
		int woken = R.wake_pending, quit = R.quit;
		R.wake_pending = 0;
		pthread_mutex_unlock(&R.wake_mu);
		if (quit)
			break;
		if (R.cfg.duration_ms && __atomic_load_n(&R.state, __ATOMIC_ACQUIRE) == ST_ACTIVE &&
		    mono_ns(CLOCK_MONOTONIC) - R.active_since_ns >= R.cfg.duration_ms * 1000000ull)
			set_state(ST_ACTIVE, ST_STOPPED);
		uint64_t now = mono_ns(CLOCK_MONOTONIC);
		/* (90%: a timed wait may end a little before its deadline) */
		if (woken || (R.cfg.flush_ms && (now - last_flush) * 10 >= R.cfg.flush_ms * 9000000ull)) {
			flush_all(0);
			last_flush = now;
		}
		stream_keepalive();
	}
	return NULL;
}

/* "all", "none" or a list "1,4-7" into R.enabled. */
static int apply_enable_list(const char *s)
{
	if (!s)
		return 0;
	if (strcmp(s, "all") == 0) {
		memset(R.enabled, 1, sizeof R.enabled);
		return 0;
	}
	memset(R.enabled, 0, sizeof R.enabled);
	if (strcmp(s, "none") == 0)
		return 0;
	while (*s) {
		char *e;
		unsigned long a = strtoul(s, &e, 0), b;
		if (e == s || a >= TRAWL_REC_MAX_SUBSYS)
			return -EINVAL;
		b = a;
		if (*e == '-') {
			const char *s2 = e + 1;
			b = strtoul(s2, &e, 0);
			if (e == s2 || b >= TRAWL_REC_MAX_SUBSYS || b < a)
				return -EINVAL;
		}
		for (unsigned long i = a; i <= b; i++)
			R.enabled[i] = 1;
		if (*e == ',')
			e++;
		else if (*e)
			return -EINVAL;
		s = e;
	}
	return 0;
}

static void read_boot_id(char *out, size_t n)
{
	memset(out, 0, n);
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t r = read(fd, out, n - 1);
	close(fd);
	out[r > 0 ? strcspn(out, "\n") : 0] = 0;
}

/* In a forked child the buffers are the parent's (shared mappings): the
 * child records nothing and leaves them alone. */
static void atfork_child(void)
{
	memset(trawl_rec_sub_mode, 0, sizeof trawl_rec_sub_mode);
	R.running = 0;
	R.have_flusher = 0;
	R.autostart = 0;
	for (struct rec_thread *t = R.threads; t; t = t->next)
		rec_ring_forget(&t->ring);
	trawl_rec_tls_.thread = NULL;
	trawl_rec_tls_.pos = trawl_rec_tls_.end = NULL;
}

/* Buffers for the trace being started (called with flush_mu held, the
 * recorder not yet running): ring files in out_dir unless streaming, the
 * directory and its metadata made now so that a crash at any point leaves
 * a readable trace, and the consumer's buffers sized so that the crash
 * flush never allocates. */
static void start_rings(void)
{
	R.use_rings = !R.stream;
	memset(&R.ring_tmpl, 0, sizeof R.ring_tmpl);
	R.ring_tmpl.pid = (uint32_t)getpid();
	R.ring_tmpl.mode = (uint32_t)R.cfg.mode;
	R.ring_tmpl.ns_per_tick = R.ns_per_tick;
	R.ring_tmpl.tsc0 = R.tsc0;
	R.ring_tmpl.mono0 = R.mono0;
	read_boot_id(R.ring_tmpl.boot_id, sizeof R.ring_tmpl.boot_id);
	pthread_mutex_lock(&R.meta_mu);
	if (R.use_rings && (ensure_dir() != 0 || trawl_ctf_meta_write(&R.meta, R.out_dir) != 0))
		R.use_rings = 0;
	else if (R.use_rings)
		R.meta_dirty = 0;
	pthread_mutex_unlock(&R.meta_mu);
	uint32_t nsub;
	size_t sub = sub_size_for(&R.cfg, &nsub);
	uint8_t *n = R.scratch_size < sub ? realloc(R.scratch, sub) : R.scratch;
	if (n) {
		R.scratch = n;
		R.scratch_size = R.scratch_size < sub ? sub : R.scratch_size;
	}
	trawl_ctf_packet_reserve(&R.pkt, TRAWL_CTF_PREAMBLE + sub);
	pthread_mutex_lock(&R.reg_mu);
	for (struct rec_thread *t = R.threads; t; t = t->next) {
		struct rec_ring old = t->ring;
		if (thread_ring_make(t) != 0)
			t->ring = old; /* keeps the memory for stats; t->mem stays NULL */
		else
			rec_ring_release(&old, 0);
	}
	pthread_mutex_unlock(&R.reg_mu);
	if (!R.atfork_done && pthread_atfork(NULL, NULL, atfork_child) == 0)
		R.atfork_done = 1;
}

static void at_exit(void)
{
	if (R.running && R.cfg.flush_at_exit)
		trawl_rec_stop();
}

/* The order matters: config, enable list and per-thread counters are reset
 * under reg_mu while every switch is off, so no producer writes meanwhile;
 * the clock is calibrated and the metadata made before the stream or ring
 * files exist, so the first thing on disk is already readable; only then is
 * the recorder marked running and the crash handler and flusher started. */
int trawl_rec_start(const struct trawl_rec_config *c)
{
	struct trawl_rec_config cfg;
	int rc = 0;
	if (R.running)
		return -EALREADY;
	if (__atomic_load_n(&R.autostart, __ATOMIC_ACQUIRE) == 1)
		__atomic_store_n(&R.autostart, 0, __ATOMIC_RELEASE);
	if (c) {
		cfg = *c;
	} else {
		trawl_rec_config_init(&cfg);
		if ((rc = trawl_rec_config_env(&cfg)) != 0)
			return rc;
	}
	if (cfg.buffer_bytes < 512)
		cfg.buffer_bytes = 512;
	pthread_mutex_lock(&R.flush_mu);
	pthread_mutex_lock(&R.reg_mu);
	R.cfg = cfg;
	if (cfg.out_dir)
		snprintf(R.out_dir, sizeof R.out_dir, "%s", cfg.out_dir);
	else
		snprintf(R.out_dir, sizeof R.out_dir, "trawl-trace-%d", (int)getpid());
	R.cfg.out_dir = R.out_dir;
	R.stream_addr[0] = 0;
	if (cfg.stream)
		snprintf(R.stream_addr, sizeof R.stream_addr, "%s", cfg.stream);
	R.cfg.stream = cfg.stream ? R.stream_addr : NULL;
	R.dir_made = 0;
	if ((rc = apply_enable_list(cfg.enable)) != 0) {
		pthread_mutex_unlock(&R.reg_mu);
		pthread_mutex_unlock(&R.flush_mu);
		return rc;
	}
	if (!R.key_made && pthread_key_create(&R.key, thread_gone) == 0)
		R.key_made = 1;
	/* a new trace after a stop: every known thread starts from scratch;
	 * switches are all off here, so no thread is writing */
	for (struct rec_thread *t = R.threads; t; t = t->next) {
		if (t->fd >= 0)
			close(t->fd);
		t->fd = -1;
		t->open = 0;
		t->cur = t->recorded = t->extra_pairs = t->produced = 0;
		t->consumed = t->expected = t->gaps = t->delivered = t->packet_seq = 0;
		t->coff = 0;
		t->last_reported = 0;
		t->file_size = 0;
		if (t->tls) {
			t->tls->pos = NULL;
			t->tls->end = NULL;
		}
	}
	R.packets = R.bytes = R.recorded_total = R.lost_dead = 0;
	R.stream_failed = 0;
	R.quit = 0;
	R.wake_pending = 0;
	pthread_mutex_unlock(&R.reg_mu);

	calibrate();
	pthread_mutex_lock(&R.meta_mu);
	R.meta.pid = (uint32_t)getpid();
	FILE *f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(R.meta.procname, sizeof R.meta.procname, f))
			R.meta.procname[strcspn(R.meta.procname, "\n")] = 0;
		fclose(f);
	}
	R.meta_dirty = 1;
	R.meta_streamed = 0;
	pthread_mutex_unlock(&R.meta_mu);

	if (R.cfg.stream) {
		if (rec_stream_open(&R.stream, R.cfg.stream, &R.meta, R.nthreads) != 0) {
			R.stream = NULL;
			R.stream_failed = 1;
		}
	}
	start_rings();
	R.running = 1;
	pthread_mutex_unlock(&R.flush_mu);
	if (R.cfg.crash_flush && R.use_rings)
		rec_crash_install();
	if (pthread_create(&R.flusher, NULL, flusher_main, NULL) == 0)
		R.have_flusher = 1;
	set_state(R.state, R.cfg.start.set ? ST_WAITING : ST_ACTIVE);
	if (!R.atexit_done && atexit(at_exit) == 0)
		R.atexit_done = 1;
	return 0;
}

/* start in reverse: switches off first so producers stop, the flusher joined
 * and one last flush drains every ring, then the stream finished (a listener
 * that does not acknowledge in 3 s gets its packets written locally, with
 * metadata). Rings are unlinked last, once stream-N holds everything, so the
 * trace is plain CTF; the memory stays for a thread still storing. */
int trawl_rec_stop(void)
{
	if (!R.running)
		return -EINVAL;
	pthread_mutex_lock(&R.reg_mu);
	__atomic_store_n(&R.state, ST_IDLE, __ATOMIC_RELEASE);
	apply_modes();
	pthread_mutex_unlock(&R.reg_mu);
	if (R.have_flusher) {
		pthread_mutex_lock(&R.wake_mu);
		R.quit = 1;
		pthread_cond_signal(&R.wake);
		pthread_mutex_unlock(&R.wake_mu);
		pthread_join(R.flusher, NULL);
		R.have_flusher = 0;
	}
	flush_all(1);
	int rc = 0;
	pthread_mutex_lock(&R.flush_mu);
	if (R.stream) {
		if (rec_stream_finish(R.stream, 3000) != 0)
			stream_fail();
		else {
			rec_stream_close(R.stream);
			R.stream = NULL;
		}
		if (R.stream_failed) {
			pthread_mutex_lock(&R.meta_mu);
			if (ensure_dir() == 0)
				rc = trawl_ctf_meta_write(&R.meta, R.out_dir);
			pthread_mutex_unlock(&R.meta_mu);
		}
	}
	rec_crash_uninstall();
	pthread_mutex_lock(&R.reg_mu);
	for (struct rec_thread *t = R.threads; t; t = t->next) {
		if (t->fd >= 0)
			close(t->fd);
		t->fd = -1;
		/* stream-N has everything: the trace is plain CTF again (the
		 * memory stays, for a thread still storing its last event) */
		rec_ring_unlink(&t->ring);
	}
	pthread_mutex_unlock(&R.reg_mu);
	R.running = 0;
	pthread_mutex_unlock(&R.flush_mu);
	return rc;
}

void trawl_rec_get_stats(struct trawl_rec_stats *s)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_lock(&R.flush_mu);
	pthread_mutex_lock(&R.reg_mu);
	s->recorded = R.recorded_total;
	s->lost = R.lost_dead;
	for (struct rec_thread *t = R.threads; t; t = t->next) {
		s->lost += thread_lost(t);
		s->threads++;
	}
	s->packets = R.packets;
	s->bytes = R.bytes;
	s->streaming = R.stream != NULL;
	s->stream_failed = R.stream_failed;
	s->triggered = R.state == ST_ACTIVE || R.state == ST_STOPPED || (R.state == ST_IDLE && !R.cfg.start.set);
	s->stopped = R.state == ST_STOPPED;
	pthread_mutex_unlock(&R.reg_mu);
	pthread_mutex_unlock(&R.flush_mu);
}

const char *trawl_rec_out_dir(void)
{
	return R.out_dir;
}

/* Trace a program without code changes: when the environment asks for it,
 * every switch sends events to the slow path, where the first one starts
 * the recorder from the environment. A program that calls trawl_rec_start
 * itself before its first event keeps its own configuration. */
__attribute__((constructor)) static void rec_autostart(void)
{
	const char *v = getenv("TRAWL_REC");
	if ((getenv("TRAWL_REC_OUT") && *getenv("TRAWL_REC_OUT")) ||
	    (getenv("TRAWL_REC_STREAM") && *getenv("TRAWL_REC_STREAM")) || (v && strcmp(v, "1") == 0)) {
		R.autostart = 1;
		memset(trawl_rec_sub_mode, 2, sizeof trawl_rec_sub_mode);
	}
}
