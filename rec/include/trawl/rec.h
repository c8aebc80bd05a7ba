/* trawl recorder: emit software events from a program, cheaply.
 *
 *   #include <trawl/rec.h>
 *   TRAWL_REC(SUBSYS, EVENT, arg);          // 16-byte event, the fast path
 *
 * An event is a 64-bit timestamp (cycle counter: x86 TSC, AArch64 CNTVCT)
 * plus a word subsystem(15 bits) << 48 | event(16) << 32 | argument(32),
 * written without locks into a buffer owned by the calling thread. Buffers
 * are split into sub-buffers; each full sub-buffer becomes one CTF packet,
 * written by a background thread to a trace directory (CTF 1.8, readable by
 * babeltrace2 and `trawl events`) or streamed to `trawl listen`.
 *
 * Cost model: a disabled subsystem costs one byte load and a branch; an
 * enabled event costs the counter read, two 8-byte stores and a pointer
 * bump. Everything else (triggers, buffer switches, first use in a thread)
 * happens off the fast path.
 *
 * Configuration: trawl_rec_start() with a struct trawl_rec_config, or the
 * environment (read by trawl_rec_config_env and at program start when
 * TRAWL_REC_OUT or TRAWL_REC_STREAM is set):
 *   TRAWL_REC_OUT=DIR          trace directory (default trawl-trace-PID)
 *   TRAWL_REC_STREAM=HOST:PORT send packets to a listener instead
 *   TRAWL_REC_MODE=discard|overwrite
 *   TRAWL_REC_BUFFER=BYTES     per-thread buffer (k/m suffixes), TRAWL_REC_SUBBUF=N sub-buffers
 *   TRAWL_REC_ENABLE=all|none|S,S-S,...   subsystems on (numbers)
 *   TRAWL_REC_START=S:E[:ARG]  start trigger, TRAWL_REC_STOP=S:E[:ARG] stop trigger
 *   TRAWL_REC_DURATION=MS      stop this long after the start
 *   TRAWL_REC_FLUSH_MS=MS      periodic flush (0 = only when sub-buffers fill)
 *   TRAWL_REC_CRASH_FLUSH=0|1  flush from fatal-signal handlers (default 1)
 *
 * Functions return 0 or a negative errno value. The library never prints
 * and never exits. Usable from C and C++ (GCC or Clang).
 */
#ifndef TRAWL_REC_H
#define TRAWL_REC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRAWL_REC_MAX_SUBSYS 0x8000u   /* subsystems 0..32767 */
#define TRAWL_REC_MAX_FIELDS 16        /* typed fields per event */

/* Per-subsystem switch read by the fast path: 0 off, 1 record, 2 take the
 * slow path (trigger check, or recorder not running in this thread yet). */
extern uint8_t trawl_rec_sub_mode[TRAWL_REC_MAX_SUBSYS];

/* The calling thread's write cursor. Initial-exec TLS so that code in a
 * shared library reaches it without a __tls_get_addr call. */
struct trawl_rec_tls {
	uint64_t *pos;
	uint64_t *end;
	void *thread;
	uint32_t cpu;      /* the processor the thread's last record was on
			    * (TRAWL_REC_TRACKS_CPU: as its rseq area said) */
};
extern __thread struct trawl_rec_tls trawl_rec_tls_ __attribute__((tls_model("initial-exec")));

uint64_t trawl_rec_ticks_fallback(void);

/* Raw cycle counter. */
static inline uint64_t trawl_rec_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return trawl_rec_ticks_fallback();
#endif
}

/* The processor the thread runs on, for noticing a migration at the next
 * event (docs/recorder.md, "Thread migration"): the kernel keeps it in the
 * thread's rseq area, which glibc (2.35+) registers, so reading it is one
 * load from thread-local memory (under 1 ns; rdtscp, which reads it with
 * the counter, costs twice rdtsc on the VMs this was measured on). Where
 * rseq is not registered it reads RSEQ_CPU_ID_REGISTRATION_FAILED, never
 * changes, and the CPU is noted once per sub-buffer as without it. */
#if defined(__GLIBC__) && defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define TRAWL_REC_TRACKS_CPU 1
static inline uint32_t trawl_rec_cpu(void)
{
	const struct rseq *rs = (const struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	return __atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
}
#endif
#endif
#ifndef TRAWL_REC_TRACKS_CPU
#define TRAWL_REC_TRACKS_CPU 0
#endif

void trawl_rec_emit_slow(uint16_t subsys, uint16_t event, uint32_t arg);
/* Typed event: n (<= TRAWL_REC_MAX_FIELDS) field values, each widened to
 * 64 bits; their types come from the event's definition (trawl_rec_define). */
void trawl_rec_emit_fields(uint16_t subsys, uint16_t event, const uint64_t *fields, unsigned n);

/* Is the subsystem switched on (or waiting for a trigger)? For callers that
 * want to skip computing arguments. */
static inline int trawl_rec_on(uint16_t subsys)
{
	return trawl_rec_sub_mode[subsys & (TRAWL_REC_MAX_SUBSYS - 1)] != 0;
}

/* The fast path. */
static inline void trawl_rec_emit(uint16_t subsys, uint16_t event, uint32_t arg)
{
	uint8_t m = trawl_rec_sub_mode[subsys & (TRAWL_REC_MAX_SUBSYS - 1)];
	if (__builtin_expect(m == 0, 0))
		return;
	struct trawl_rec_tls *t = &trawl_rec_tls_;
	uint64_t *p = t->pos;
	if (__builtin_expect(m != 1 || (uintptr_t)t->end - (uintptr_t)p < 16, 0)) {
		trawl_rec_emit_slow(subsys, event, arg);
		return;
	}
#if TRAWL_REC_TRACKS_CPU
	if (__builtin_expect(trawl_rec_cpu() != t->cpu, 0)) { /* migrated: the slow path notes it */
		trawl_rec_emit_slow(subsys, event, arg);
		return;
	}
#endif
	uint64_t ts = trawl_rec_ticks();
	p[1] = ((uint64_t)(subsys & (TRAWL_REC_MAX_SUBSYS - 1)) << 48) | ((uint64_t)event << 32) | arg;
	/* the timestamp goes in last (a compiler barrier, no instruction): a
	 * process that dies between the two stores leaves a stale timestamp,
	 * which ends the buffer for the crash recovery (trawl/rec-ring.h) */
	__atomic_signal_fence(__ATOMIC_RELEASE);
	p[0] = ts;
	__atomic_store_n(&t->pos, p + 2, __ATOMIC_RELEASE);
}

#define TRAWL_REC(subsys, event, arg) trawl_rec_emit((uint16_t)(subsys), (uint16_t)(event), (uint32_t)(arg))

/* Field types of typed events (the order is part of the JSON/CTF contract). */
enum trawl_rec_type {
	TRAWL_REC_U8 = 1, TRAWL_REC_U16, TRAWL_REC_U32, TRAWL_REC_U64,
	TRAWL_REC_S8, TRAWL_REC_S16, TRAWL_REC_S32, TRAWL_REC_S64,
};

struct trawl_rec_field {
	const char *name;
	enum trawl_rec_type type;
};

/* A named event. Events with no fields, or one field of at most 32 bits,
 * use the fast path (the field is the argument); others are typed. */
struct trawl_rec_event_def {
	uint16_t subsys;
	uint16_t event;
	const char *subsys_name;
	const char *name;
	unsigned nfields;
	const struct trawl_rec_field *fields;
};

/* Register names and field types (the generated header does this from a
 * constructor). Definitions must stay valid for the life of the program.
 * Registering the same (subsys, event) twice keeps the first. */
int trawl_rec_define(const struct trawl_rec_event_def *defs, size_t n);

enum trawl_rec_mode {
	TRAWL_REC_DISCARD = 0,     /* full buffer: new events are dropped (counted) */
	TRAWL_REC_OVERWRITE = 1,   /* full buffer: oldest sub-buffer is reused (counted) */
};

struct trawl_rec_trigger {
	int set;
	uint16_t subsys, event;
	int match_arg;             /* 0: any argument */
	uint32_t arg;
};

struct trawl_rec_config {
	const char *out_dir;       /* NULL: trawl-trace-PID in the current directory */
	const char *stream;        /* "host:port" to stream to a listener, or NULL */
	enum trawl_rec_mode mode;
	size_t buffer_bytes;       /* per thread (default 1 MiB) */
	unsigned subbuffers;       /* sub-buffers per thread (default 8) */
	unsigned flush_ms;         /* periodic flush (default 200; 0 = none) */
	int flush_at_exit;         /* default 1 */
	const char *enable;        /* "all" (default), "none", or "1,4-7": subsystems on at start
	                              (NULL keeps what trawl_rec_enable set) */
	struct trawl_rec_trigger start, stop;
	uint64_t duration_ms;      /* 0: no limit */
	int crash_flush;           /* default 1: on SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
	                              SIGTERM, SIGINT (when their action is the default) write
	                              out the buffers before dying; the buffer files keep
	                              everything anyway (docs/recorder.md) */
};

/* Defaults. */
void trawl_rec_config_init(struct trawl_rec_config *c);
/* Apply TRAWL_REC_* variables over c. Returns -EINVAL on a malformed value
 * (c keeps what parsed). Strings point into the environment. */
int trawl_rec_config_env(struct trawl_rec_config *c);

/* Start recording (NULL: defaults plus environment). -EALREADY if running. */
int trawl_rec_start(const struct trawl_rec_config *c);
/* Write everything buffered so far (all threads) and return. */
int trawl_rec_flush(void);
/* Final flush, stop the background thread, close the trace. */
int trawl_rec_stop(void);

/* Switch a subsystem on or off at run time. */
int trawl_rec_enable(uint16_t subsys, int on);
void trawl_rec_enable_all(int on);

struct trawl_rec_stats {
	uint64_t recorded;         /* events written to the trace (or stream) */
	uint64_t lost;             /* events dropped or overwritten, all threads */
	uint64_t packets;
	uint64_t bytes;            /* bytes of CTF stream data produced */
	uint32_t threads;
	int streaming;             /* 1 while connected to a listener */
	int stream_failed;         /* the connection broke; fell back to out_dir */
	int triggered;             /* start trigger seen (or none set) */
	int stopped;               /* stop trigger or duration reached */
};
void trawl_rec_get_stats(struct trawl_rec_stats *s);

/* Where the trace is being written (valid while recording). */
const char *trawl_rec_out_dir(void);

#ifdef __cplusplus
}
#endif

#endif
