/* Recorder benchmark driver (bench/bench-rec.sh runs it):
 *   bench-rec fast N DIR      one thread: baseline, enabled, disabled (ns/event)
 *   bench-rec threads N DIR   the same with two threads emitting at once
 *   bench-rec rate SECONDS DIR   discard mode paced at 10 million events/s
 *                             with the flusher writing: events lost
 * Each figure is the best of 5 runs; the baseline is a cycle-counter read
 * plus one 16-byte store, measured in the same process. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../bench/rec/bench-rec-core.h"

static uint64_t n_events;

static void start(const char *dir, enum trawl_rec_mode mode, size_t bytes)
{
	struct trawl_rec_config c;
	trawl_rec_config_init(&c);
	c.out_dir = dir;
	c.mode = mode;
	c.buffer_bytes = bytes;
	c.subbuffers = 16;
	c.flush_ms = mode == TRAWL_REC_OVERWRITE ? 0 : 5;
	if (trawl_rec_start(&c) != 0) {
		fprintf(stderr, "bench-rec: cannot start the recorder\n");
		exit(1);
	}
}

struct result {
	double base, en, dis, empty, cpu;
	long faults;                 /* page faults (minor + major) inside the enabled loops */
};

static long faults_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

static void measure(struct result *r)
{
	r->base = r->en = r->dis = r->empty = r->cpu = 1e9;
	r->faults = 0;
	/* the first event maps the thread's buffer file (pre-faulted there);
	 * the warm-up loop below also wraps it, so no page is new after it */
	bench_enabled(n_events);
	for (int i = 0; i < 5; i++) {
		double b = bench_baseline(n_events);
		long f0 = faults_now();
		double e = bench_enabled(n_events);
		r->faults += faults_now() - f0;
		double d = bench_disabled(n_events), z = bench_empty(n_events), c = bench_cpu_check(n_events);
		r->cpu = c < r->cpu ? c : r->cpu;
		r->base = b < r->base ? b : r->base;
		r->en = e < r->en ? e : r->en;
		r->dis = d < r->dis ? d : r->dis;
		r->empty = z < r->empty ? z : r->empty;
	}
}

static void *thread_main(void *p)
{
	measure(p);
	return NULL;
}

/* Emit at 10 M events/s: bursts of 1000 events, each burst scheduled
 * 100 us after the previous one (the clock, not the loop, sets the pace). */
static void rate(double seconds)
{
	uint64_t burst = 1000, sent = 0;
	double t0 = bench_now(), next = t0;
	while (bench_now() - t0 < seconds) {
		for (uint64_t i = 0; i < burst; i++)
			TRAWL_REC(1, 2, (uint32_t)(sent + i));
		sent += burst;
		next += (double)burst / 10e6;
		while (bench_now() < next)
			;
	}
	double el = bench_now() - t0;
	trawl_rec_stop();
	struct trawl_rec_stats st;
	trawl_rec_get_stats(&st);
	printf("rate_events %llu\nrate_per_s %.0f\nrate_lost %llu\nrate_recorded %llu\n", (unsigned long long)sent,
	       (double)sent / el, (unsigned long long)st.lost, (unsigned long long)st.recorded);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench-rec fast|threads|rate N DIR\n");
		return 2;
	}
	const char *dir = argv[3];
	if (!strcmp(argv[1], "rate")) {
		start(dir, TRAWL_REC_DISCARD, 16u << 20);
		trawl_rec_enable(3, 0);
		rate(atof(argv[2]));
		return 0;
	}
	n_events = strtoull(argv[2], NULL, 0);
	start(dir, TRAWL_REC_OVERWRITE, 8u << 20);
	trawl_rec_enable(3, 0);
	if (!strcmp(argv[1], "fast")) {
		struct result r;
		measure(&r);
		printf("baseline_ns %.2f\nenabled_ns %.2f\ndisabled_ns %.2f\nempty_loop_ns %.2f\nenabled_faults %ld\n"
		       "cpu_check_ns %.2f\n", r.base, r.en, r.dis, r.empty, r.faults, r.cpu);
	} else {
		pthread_t th[2];
		struct result r[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, thread_main, &r[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		printf("mt_baseline_ns %.2f\nmt_enabled_ns %.2f\nmt_enabled_faults %ld\n", (r[0].base + r[1].base) / 2,
		       (r[0].en + r[1].en) / 2, r[0].faults + r[1].faults);
	}
	trawl_rec_stop();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("peak_rss_kb %ld\n", ru.ru_maxrss);
	return 0;
}
