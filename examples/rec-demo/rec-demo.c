/* rec-demo: a toy packet pipeline instrumented with the trawl recorder.
 *
 *   rec-demo [--threads T] [--packets N] [--pace US] [--out DIR] [--no-start]
 *
 * --no-start leaves the recorder to the environment (TRAWL_REC_OUT ...).
 * --pace sleeps US microseconds every 100 packets (to make a run last).
 *
 * Each of T worker threads handles N packets: RX, take the shared lock,
 * release it, then every tenth packet is dropped (DROP) and the others are
 * sent (TX with length, port and latency). The event names and field types
 * come from demo.tdef, compiled by `trawl defs demo.tdef -o .` into demo.h.
 * TRAWL_REC_* variables configure the recorder (TRAWL_REC_STREAM=host:port
 * streams to `trawl listen`). The counts are deterministic, so tests check
 * them exactly: RX = ACQUIRE = RELEASE = T*N, DROP = T*ceil(N/10),
 * TX = T*N - DROP.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo.h"

static unsigned npackets = 10000;
static unsigned pace_us;           /* sleep this long every 100 packets */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long queue_total;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *worker(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	for (unsigned j = 0; j < npackets; j++) {
		uint32_t len = 64 + (j * 37u) % 1400;
		int64_t t0 = now_ns();
		trawl_net_rx(len);
		pthread_mutex_lock(&queue_lock);
		trawl_lock_acquire(me);
		queue_total += len;
		trawl_lock_release(me);
		pthread_mutex_unlock(&queue_lock);
		if (j % 10 == 0)
			trawl_net_drop(j);
		else
			trawl_net_tx(len, (uint16_t)(8000 + me), now_ns() - t0);
		if (pace_us && j % 100 == 99) {
			struct timespec ts = { (time_t)(pace_us / 1000000), (long)(pace_us % 1000000) * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void run(unsigned nthreads)
{
	trawl_app_start(nthreads);
	pthread_t th[64];
	for (unsigned i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	trawl_app_stop(nthreads * npackets);
}

int main(int argc, char **argv)
{
	unsigned nthreads = 2;
	int no_start = 0;
	const char *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			nthreads = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--packets") && i + 1 < argc)
			npackets = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pace") && i + 1 < argc)
			pace_us = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-start"))
			no_start = 1;
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else {
			fprintf(stderr, "usage: rec-demo [--threads T] [--packets N] [--pace US] [--out DIR] [--no-start]\n");
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > 64)
		nthreads = 2;
	if (no_start) {
		/* traced through TRAWL_REC_* alone: the recorder starts at the
		 * first event and writes the trace at exit */
		run(nthreads);
		printf("rec-demo: %u threads x %u packets\n", nthreads, npackets);
		return 0;
	}
	struct trawl_rec_config cfg;
	trawl_rec_config_init(&cfg);
	cfg.buffer_bytes = 4u << 20;
	if (trawl_rec_config_env(&cfg) != 0)
		fprintf(stderr, "rec-demo: ignoring a malformed TRAWL_REC_* variable\n");
	if (out)
		cfg.out_dir = out;
	else if (!cfg.out_dir)
		cfg.out_dir = "rec-demo-trace";
	int rc = trawl_rec_start(&cfg);
	if (rc != 0 && rc != -EALREADY) {
		fprintf(stderr, "rec-demo: cannot start the recorder: %s\n", strerror(-rc));
		return 1;
	}
	run(nthreads);
	trawl_rec_stop();
	struct trawl_rec_stats st;
	trawl_rec_get_stats(&st);
	printf("rec-demo: %u threads x %u packets: %llu events recorded, %llu lost, trace in %s%s\n", nthreads,
	       npackets, (unsigned long long)st.recorded, (unsigned long long)st.lost,
	       cfg.stream && !st.stream_failed ? "the listener" : trawl_rec_out_dir(),
	       st.stream_failed ? " (stream failed: fell back to files)" : "");
	return 0;
}
