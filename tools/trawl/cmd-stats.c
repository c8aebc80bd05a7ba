/* trawl stats: what a trace holds (lines, events by kind, instructions by
 * instruction set and core, time range, distinct PCs) and how fast it was
 * read. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "trace-open.h"

/* A set of 64-bit PCs: open addressing, grown at half load. Compact (8
 * bytes a slot) because traces visit millions of distinct addresses. */
struct pcset {
	uint64_t *slots;
	size_t cap, count;
	int has_zero;   /* 0 is the empty-slot marker, so it is kept aside */
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static int pcset_grow(struct pcset *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 4096;
	uint64_t *n = calloc(ncap, sizeof *n);
	if (!n)
		return 0;
	for (size_t i = 0; i < s->cap; i++) {
		uint64_t v = s->slots[i];
		if (!v)
			continue;
		size_t j = mix(v) & (ncap - 1);
		while (n[j])
			j = (j + 1) & (ncap - 1);
		n[j] = v;
	}
	free(s->slots);
	s->slots = n;
	s->cap = ncap;
	return 1;
}

static int pcset_add(struct pcset *s, uint64_t pc)
{
	if (!pc) {
		s->has_zero = 1;
		return 1;
	}
	if ((s->count + 1) * 2 > s->cap && !pcset_grow(s))
		return 0;
	size_t j = mix(pc) & (s->cap - 1);
	while (s->slots[j]) {
		if (s->slots[j] == pc)
			return 1;
		j = (j + 1) & (s->cap - 1);
	}
	s->slots[j] = pc;
	s->count++;
	return 1;
}

#define NISETS 4

/* Software events counted per name: a trace has a few hundred classes at
 * most, and their names are the reader's for its whole life. */
struct sw_count {
	struct trawl_str name;
	uint64_t n;
};

struct stats {
	uint64_t by_kind[TRAWL_EV_GAP + 1];
	uint64_t *insns;          /* [cpu * NISETS + iset] */
	size_t ncpus;
	uint64_t regs, mems;
	uint64_t tmin, tmax;
	int unit;                 /* -1 none seen, -2 mixed */
	int have_time;
	struct pcset pcs;
	struct sw_count *sw;
	size_t nsw, swcap;
	size_t sw_last;           /* the slot the previous event used */
};

static int count_sw(struct stats *s, const struct trawl_event *e)
{
	struct trawl_str nm = e->u.sw.name;
	if (s->sw_last < s->nsw && s->sw[s->sw_last].name.ptr == nm.ptr) {
		s->sw[s->sw_last].n++;
		return 1;
	}
	for (size_t i = 0; i < s->nsw; i++)
		if (s->sw[i].name.len == nm.len && memcmp(s->sw[i].name.ptr, nm.ptr, nm.len) == 0) {
			s->sw[i].n++;
			s->sw_last = i;
			return 1;
		}
	if (s->nsw == s->swcap) {
		size_t ncap = s->swcap ? s->swcap * 2 : 64;
		void *p = realloc(s->sw, ncap * sizeof *s->sw);
		if (!p)
			return 0;
		s->sw = p;
		s->swcap = ncap;
	}
	s->sw[s->nsw] = (struct sw_count){ nm, 1 };
	s->sw_last = s->nsw++;
	return 1;
}

static int sw_cmp(const void *a, const void *b)
{
	const struct sw_count *x = a, *y = b;
	uint32_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
	int c = memcmp(x->name.ptr, y->name.ptr, n);
	return c ? c : (x->name.len > y->name.len) - (x->name.len < y->name.len);
}

static int count_insn(struct stats *s, const struct trawl_event *e)
{
	if (e->cpu >= s->ncpus) {
		size_t n = (size_t)e->cpu + 1;
		uint64_t *p = realloc(s->insns, n * NISETS * sizeof *p);
		if (!p)
			return 0;
		memset(p + s->ncpus * NISETS, 0, (n - s->ncpus) * NISETS * sizeof *p);
		s->insns = p;
		s->ncpus = n;
	}
	s->insns[(size_t)e->cpu * NISETS + (e->u.insn.iset < NISETS ? e->u.insn.iset : 0)]++;
	return pcset_add(&s->pcs, e->u.insn.pc);
}

static void count_time(struct stats *s, const struct trawl_event *e)
{
	if (!(e->flags & TRAWL_EVF_HAS_TIME))
		return;
	if (!s->have_time) {
		s->have_time = 1;
		s->tmin = s->tmax = e->time;
		s->unit = e->time_unit;
		return;
	}
	if (e->time < s->tmin)
		s->tmin = e->time;
	if (e->time > s->tmax)
		s->tmax = e->time;
	if (s->unit != e->time_unit)
		s->unit = -2;
}

static void print_stats(const struct stats *s, const struct trawl_reader_stats *rs,
			const char *path, int timing, double secs)
{
	printf("trace: %s\n", path);
	printf("lines: %" PRIu64 "\n", rs->lines);
	printf("bytes: %" PRIu64 "\n", rs->bytes);
	if (rs->bad_lines)
		printf("skipped bad lines: %" PRIu64 "\n", rs->bad_lines);
	if (rs->unknown_lines)
		printf("lines of unknown record types (kept as text): %" PRIu64 "\n", rs->unknown_lines);
	printf("events: %" PRIu64 "\n", rs->events);
	for (int k = TRAWL_EV_INSN; k <= TRAWL_EV_GAP; k++)
		if (s->by_kind[k])
			printf("  %-11s %" PRIu64 "\n", trawl_event_kind_name((enum trawl_event_kind)k),
			       s->by_kind[k]);
	printf("register writes: %" PRIu64 "\n", s->regs);
	printf("memory accesses: %" PRIu64 "\n", s->mems);
	printf("instructions by core and instruction set:\n");
	for (size_t c = 0; c < s->ncpus; c++)
		for (int i = 0; i < NISETS; i++)
			if (s->insns[c * NISETS + (size_t)i])
				printf("  cpu%-3zu %-4s %" PRIu64 "\n", c,
				       trawl_iset_name((enum trawl_iset)i), s->insns[c * NISETS + (size_t)i]);
	if (!s->have_time)
		printf("time: none\n");
	else if (s->unit == -2)
		/* (Tarmac readers refuse a second unit; a range over two
		 * units' raw counts would mean nothing) */
		printf("time: mixed units, no range\n");
	else
		printf("time: %" PRIu64 " .. %" PRIu64 " %s\n", s->tmin, s->tmax,
		       trawl_time_unit_name((enum trawl_time_unit)s->unit));
	printf("distinct pcs: %zu\n", s->pcs.count + (size_t)s->pcs.has_zero);
	if (s->nsw) {
		printf("software events by name:\n");
		for (size_t i = 0; i < s->nsw; i++)
			printf("  %-24.*s %" PRIu64 "\n", (int)s->sw[i].name.len, s->sw[i].name.ptr, s->sw[i].n);
	}
	if (rs->lost_events)
		printf("software events the recorder lost: %" PRIu64 "\n", rs->lost_events);
	if (!timing)
		return;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (secs <= 0)
		secs = 1e-9;
	printf("elapsed: %.3f s\n", secs);
	printf("throughput: %.1f MB/s, %.0f lines/s\n", (double)rs->bytes / 1e6 / secs,
	       (double)rs->lines / secs);
	printf("peak rss: %ld KiB\n", ru.ru_maxrss);
}

/* One pass over the trace: counts per event kind, per core and
 * instruction set, the time range and the distinct PCs (an open-addressing
 * set, as traces visit millions of addresses); the figures that vary from
 * run to run are printed last and can be left out (--no-timing). */
int cmd_stats(int argc, char **argv)
{
	struct trace_open to = { .cmd = "stats" };
	int no_timing = 0, rc;
	struct trawl_reader *r = NULL;
	struct stats s;
	const struct cli_option opts[] = {
		CLI_FLAG("no-timing", 0, &no_timing,
			 "leave out the figures that vary from run to run\n"
			 "(elapsed time, MB/s, lines/s, peak memory)"),
		TRACE_OPTIONS(&to),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "stats",
		.usage = "[--no-timing] [--implicit-thumb] [--big-endian] [--lenient] TRACE",
		.description =
			"Reads TRACE (a file, or - for standard input; .gz and .zst are\n"
			"decompressed; a CTF trace directory or a Barrelfish dump of software\n"
			"events) and prints how many lines and events it holds, events by\n"
			"kind, instructions by instruction set and core, the time range, the\n"
			"number of distinct instruction addresses, and the reading speed.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "missing TRACE",
	};
	if (cli_parse(&cmd, argc, argv, &rc) < 0)
		return rc;
	to.path = argv[0];
	int timing = !no_timing;
	double t0 = cli_now();
	if ((rc = trace_reader_open(&to, &r)))
		return rc;
	memset(&s, 0, sizeof s);
	s.unit = -1;

	struct cli_progress prog;
	struct trawl_input *in = trawl_reader_input(r);
	cli_progress_start(&prog, "stats", trawl_input_raw_size(in));
	struct trawl_event_batch b;
	struct trawl_error err;
	enum trawl_status st;
	trawl_error_clear(&err);
	rc = EXIT_OK;
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK) {
		for (size_t i = 0; i < b.count; i++) {
			const struct trawl_event *e = &b.events[i];
			if (e->kind <= TRAWL_EV_GAP)
				s.by_kind[e->kind]++;
			s.regs += e->nregs;
			s.mems += e->nmems;
			count_time(&s, e);
			if ((e->kind == TRAWL_EV_INSN && !count_insn(&s, e)) ||
			    (e->kind == TRAWL_EV_SW && !count_sw(&s, e))) {
				cli_error("stats", "out of memory");
				rc = EXIT_BAD_INPUT;
				goto out;
			}
		}
		cli_progress_update(&prog, trace_progress(r));
	}
	cli_progress_finish(&prog);
	/* damage stops the reading: what was read before it is still shown */
	if (st != TRAWL_END)
		rc = cli_report("stats", &err);
	else
		trace_report_skipped(&to, r);
	if (s.nsw > 1)
		qsort(s.sw, s.nsw, sizeof *s.sw, sw_cmp);
	print_stats(&s, trawl_reader_stats(r), to.path, timing, cli_now() - t0);
out:
	free(s.insns);
	free(s.pcs.slots);
	free(s.sw);
	trawl_reader_close(r);
	return rc;
}
