/* A program that records N events and then dies (tests/cli/rec-crash.sh):
 *   rec-crash-prog DIR N HOW [FLUSH_AT]
 * HOW: segv (a write through a null pointer), abort, kill (SIGKILL to
 * itself), _exit (_exit(3) skips the recorder's atexit flush), exit
 * (a normal end), pause (create DIR.ready, then wait to be killed). Event i (0-based) is t:SEQ with seq=i, and every 7th
 * is also t:PAIR with seq=i, triple=3*i (a typed event), so a reader's
 * listing can be checked against the sequence alone. FLUSH_AT: call
 * trawl_rec_flush() after that many events (so that part of the trace
 * is in stream files and the rest only in the buffer files). A fifth
 * argument "undef" adds, after the loop, one event nobody defined
 * (subsystem 2, event 5, arg 77). CRASH_THREADS=T in the environment
 * first runs T threads that each emit N events 3:K with arg 0..N-1 (K =
 * the thread's number) and end, then the main thread as above. The
 * recorder's other settings come from TRAWL_REC_* variables. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trawl/rec.h"

static const struct trawl_rec_field seq_f[] = { { "seq", TRAWL_REC_U32 } };
static const struct trawl_rec_field pair_f[] = { { "seq", TRAWL_REC_U64 }, { "triple", TRAWL_REC_U64 } };
static const struct trawl_rec_event_def defs[] = {
	{ 1, 0, "t", "SEQ", 1, seq_f },
	{ 1, 1, "t", "PAIR", 2, pair_f },
};

/* the null write must reach the hardware, also under UBSan */
__attribute__((noinline, no_sanitize("undefined"))) static void segv(void)
{
	volatile int *volatile p = NULL; /* the compiler cannot see it is null */
	*p = 1;
}

static unsigned long n_events;

static void *worker(void *arg)
{
	uint16_t k = (uint16_t)(uintptr_t)arg;
	for (unsigned long i = 0; i < n_events; i++)
		TRAWL_REC(3, k, i);
	return NULL;
}

static void run_workers(void)
{
	const char *v = getenv("CRASH_THREADS");
	unsigned nt = v ? (unsigned)atoi(v) : 0;
	pthread_t th[16];
	if (nt > 16)
		nt = 16;
	for (unsigned k = 0; k < nt; k++)
		pthread_create(&th[k], NULL, worker, (void *)(uintptr_t)k);
	for (unsigned k = 0; k < nt; k++)
		pthread_join(th[k], NULL);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: rec-crash-prog DIR N segv|abort|kill|_exit|exit|pause [FLUSH_AT]\n");
		return 2;
	}
	unsigned long n = strtoul(argv[2], NULL, 0), flush_at = argc > 4 ? strtoul(argv[4], NULL, 0) : 0;
	struct trawl_rec_config c;
	trawl_rec_config_init(&c);
	if (trawl_rec_config_env(&c) != 0)
		return 2;
	c.out_dir = argv[1];
	trawl_rec_define(defs, 2);
	if (trawl_rec_start(&c) != 0) {
		fprintf(stderr, "rec-crash-prog: cannot start the recorder\n");
		return 1;
	}
	n_events = n;
	run_workers();
	for (unsigned long i = 0; i < n; i++) {
		TRAWL_REC(1, 0, i);
		if (i % 7 == 0) {
			uint64_t v[2] = { i, 3 * (uint64_t)i };
			trawl_rec_emit_fields(1, 1, v, 2);
		}
		if (flush_at && i + 1 == flush_at)
			trawl_rec_flush();
	}
	if (argc > 5 && argv[5][0] == 'u')
		TRAWL_REC(2, 5, 77);
	const char *how = argv[3];
	switch (how[0]) {
	case 's':
		segv();
		break;
	case 'a':
		abort();
	case 'k':
		kill(getpid(), SIGKILL);
		break;
	case '_':
		_exit(3);
	case 'p': {
		char ready[4096];
		snprintf(ready, sizeof ready, "%s.ready", argv[1]);
		close(open(ready, O_WRONLY | O_CREAT, 0666));
		for (;;)
			pause();
	}
	default:
		break;
	}
	return 0;
}
