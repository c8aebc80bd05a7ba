/* trawl events summary: statistics of the activities (count, total, min,
 * mean, p50/p90/p99, max, a duration histogram), time per core in each
 * state, and events per unit of time, as text, JSON or CSV. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events-act.h"
#include "events-run.h"
#include "trawl/json.h"
#include "trawl/sw-stats.h"

static const char *const kinds[] = { "", "span", "state", "message" };

struct sum {
	struct events_run *r;
	struct trawl_swstats st;
	int format;
	struct trawl_json j;
	uint8_t *is_state;           /* per declared activity, looked up once */
	size_t nis;
	/* the kept events per unit of time, counted where the events are read
	 * (events_run_all's on_read, maybe another thread: a cache line of
	 * its own), put into st at the end */
	_Alignas(64) struct trawl_swstats rate;
	char pad[64];
};

/* Once per finished activity (about one per event) with --time (without,
 * trawl_swstats_sink takes the records): the declared activities' kinds
 * come from a table made at the start, not a lookup. */
static void on_record(void *ctx, const struct trawl_act_record *rec)
{
	struct sum *s = ctx;
	/* the begin event's verdict first: the overlap test only with --time */
	if (!(rec->flags & TRAWL_ACT_KEEP) || (s->r->spec.time && !events_run_act_kept(s->r, rec)))
		return;
	int st = rec->act < s->nis ? s->is_state[rec->act]
				   : trawl_act_def(s->r->act, rec->act)->kind == TRAWL_DEFS_STATE;
	uint64_t lo, hi;
	if (!st || !trawl_swfilter_time_window(s->r->filter, &lo, &hi)) {
		trawl_swstats_record(&s->st, rec, st);
		return;
	}
	/* the duration whole, the core's time in the state only inside the
	 * window: the fractions are of the window */
	trawl_swstats_record(&s->st, rec, 0);
	struct trawl_act_record in = *rec;
	in.begin = in.begin > lo ? in.begin : lo;
	in.end = in.end < hi ? in.end : hi;
	in.end = in.end > in.begin ? in.end : in.begin;
	trawl_swstats_state_time(&s->st, &in);
}

/* -1 when out of memory (trawl_swstats_sink needs the table). */
static int kinds_init(struct sum *s)
{
	size_t n = s->r->act ? trawl_act_count(s->r->act) : 0;
	if (!n)
		return 0;
	if (!(s->is_state = malloc(n)))
		return -1;
	for (size_t i = 0; i < n; i++)
		s->is_state[i] = trawl_act_def(s->r->act, i)->kind == TRAWL_DEFS_STATE;
	s->nis = n;
	return 0;
}

static void count_batch(void *ctx, const struct trawl_sw_event *evs, const uint8_t *keep, size_t n)
{
	struct sum *s = ctx;
	trawl_swstats_events(&s->rate, evs, keep, n);
}

/* Power-of-two rows of a histogram: [2^k, 2^(k+1)), 0 alone. */
static void pow2_rows(const struct trawl_hist *h, uint64_t rows[65])
{
	memset(rows, 0, 65 * sizeof *rows);
	for (size_t b = 0; h->buckets && b < TRAWL_HIST_BUCKETS; b++) {
		uint64_t lo = trawl_hist_bucket_low(b);
		rows[lo ? 64 - __builtin_clzll(lo) : 0] += h->buckets[b];
	}
}

static int state_cmp(const void *a, const void *b)
{
	const struct trawl_stats_state *x = a, *y = b;
	if (x->act != y->act)
		return x->act < y->act ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->state < y->state ? -1 : x->state > y->state;
}

static uint64_t span_ns(const struct sum *s)
{
	return s->r->read ? s->r->last - s->r->first : 0;
}

/* What the per-core fractions are of: the trace, or with --time as much
 * of the window as the trace covers. */
static uint64_t window_ns(const struct sum *s)
{
	uint64_t lo, hi;
	if (!s->r->read || !trawl_swfilter_time_window(s->r->filter, &lo, &hi))
		return span_ns(s);
	lo = lo > s->r->first ? lo : s->r->first;
	hi = hi < s->r->last ? hi : s->r->last;
	return hi > lo ? hi - lo : 0;
}

static double fraction(const struct sum *s, uint64_t ns)
{
	uint64_t sp = window_ns(s);
	return sp ? (double)ns / (double)sp : 0.0;
}

static void act_row_text(const struct sum *s, size_t i, const char *sep)
{
	const struct trawl_defs_activity *d = trawl_act_def(s->r->act, i);
	const struct trawl_hist *h = &s->st.hist[i];
	const struct trawl_act_counts *c = trawl_act_counts(s->r->act, i);
	uint64_t mean = trawl_hist_mean(h);
	char total[48];
	trawl_hist_total_text(h, total, sizeof total);
	if (*sep == ',')
		printf("%s,%s,%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		       d->name, kinds[d->kind], h->count, total, h->min, mean, trawl_hist_quantile(h, 0.5),
		       trawl_hist_quantile(h, 0.9), trawl_hist_quantile(h, 0.99), h->max, c->open_at_end,
		       c->unmatched_end, c->overflow);
	else
		printf("%-16s %-7s %10" PRIu64 " %14s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %10" PRIu64 " %10" PRIu64 " %6" PRIu64 " %9" PRIu64 " %8" PRIu64 "\n",
		       d->name, kinds[d->kind], h->count, total, h->min, mean, trawl_hist_quantile(h, 0.5),
		       trawl_hist_quantile(h, 0.9), trawl_hist_quantile(h, 0.99), h->max, c->open_at_end,
		       c->unmatched_end, c->overflow);
}

static uint64_t busy_ns(const struct sum *s, uint32_t act, uint32_t cpu)
{
	uint64_t ns = 0;
	for (size_t k = 0; k < s->st.nstates; k++) {
		const struct trawl_stats_state *x = &s->st.states[k];
		if (x->act == act && x->cpu == cpu && !trawl_act_state_idle(s->r->act, act, x->state))
			ns += x->ns;
	}
	return ns;
}

/* Text and CSV share one walk so the two cannot disagree: the activity
 * table, the histograms (text only), the per-core states with a busy row
 * per core (text only; CSV has the idle flag to compute it), the rates. */
static void text_tables(struct sum *s, int csv)
{
	const char *sep = csv ? "," : " ";
	size_t nacts = s->r->act ? trawl_act_count(s->r->act) : 0;
	if (nacts) {
		if (csv)
			puts("activity,kind,count,total_ns,min_ns,mean_ns,p50_ns,p90_ns,p99_ns,max_ns,open,unmatched,overflow");
		else
			printf("\n%-16s %-7s %10s %14s %10s %10s %10s %10s %10s %10s %6s %9s %8s\n", "activity", "kind",
			       "count", "total_ns", "min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns", "open",
			       "unmatched", "overflow");
		for (size_t i = 0; i < nacts; i++)
			act_row_text(s, i, sep);
	}
	for (size_t i = 0; i < nacts && !csv; i++) {
		uint64_t rows[65];
		pow2_rows(&s->st.hist[i], rows);
		if (!s->st.hist[i].count)
			continue;
		printf("\nduration of %s (ns):\n", trawl_act_def(s->r->act, i)->name);
		uint64_t most = 1;
		for (int k = 0; k < 65; k++)
			most = rows[k] > most ? rows[k] : most;
		for (int k = 0; k < 65; k++)
			if (rows[k])
				printf("  %20" PRIu64 " .. %-20" PRIu64 " %10" PRIu64 "  %.*s\n",
				       k ? (uint64_t)1 << (k - 1) : 0, k ? ((uint64_t)1 << (k - 1)) * 2 - 1 : 0, rows[k],
				       (int)(rows[k] * 40 / most), "########################################");
	}
	if (s->st.nstates) {
		if (csv)
			puts("\nactivity,cpu,state,time_ns,fraction,idle");
		else if (s->r->spec.time)
			printf("\nper core (fractions of the %" PRIu64 " ns of --time %s):\n%-16s %5s %-24s %14s %9s\n",
			       window_ns(s), s->r->spec.time, "activity", "cpu", "state", "time_ns", "fraction");
		else
			printf("\nper core (fractions of the trace's %" PRIu64 " ns):\n%-16s %5s %-24s %14s %9s\n",
			       span_ns(s), "activity", "cpu", "state", "time_ns", "fraction");
	}
	for (size_t k = 0; k < s->st.nstates; k++) {
		const struct trawl_stats_state *x = &s->st.states[k];
		char name[128];
		trawl_act_state_name(s->r->act, x->act, x->state, name, sizeof name);
		int idle = trawl_act_state_idle(s->r->act, x->act, x->state);
		if (csv)
			printf("%s,%u,%s,%" PRIu64 ",%.6f,%d\n", trawl_act_def(s->r->act, x->act)->name, x->cpu, name, x->ns,
			       fraction(s, x->ns), idle);
		else
			printf("%-16s %5u %-24s %14" PRIu64 " %9.4f%s\n", trawl_act_def(s->r->act, x->act)->name, x->cpu,
			       name, x->ns, fraction(s, x->ns), idle ? " (idle)" : "");
	}
	/* busy: every state but the idle one, per (activity, cpu) */
	for (size_t k = 0; k < s->st.nstates && !csv; k++) {
		const struct trawl_stats_state *x = &s->st.states[k];
		int first = 1;
		for (size_t m = 0; m < k && first; m++)
			first = !(s->st.states[m].act == x->act && s->st.states[m].cpu == x->cpu);
		if (first)
			printf("%-16s %5u %-24s %14" PRIu64 " %9.4f\n", trawl_act_def(s->r->act, x->act)->name, x->cpu,
			       "busy", busy_ns(s, x->act, x->cpu), fraction(s, busy_ns(s, x->act, x->cpu)));
	}
	if (csv || !s->st.events)
		return;
	printf("\nevents per second (buckets of %" PRIu64 " ns from the first kept event; empty ones left out):\n",
	       s->st.rate_width);
	for (size_t b = 0; b < TRAWL_STATS_RATE_BUCKETS; b++)
		if (s->st.rate[b])
			printf("  %14" PRIu64 " ns %12" PRIu64 " %16.0f/s\n", (uint64_t)b * s->st.rate_width, s->st.rate[b],
		       (double)s->st.rate[b] * 1e9 / (double)s->st.rate_width);
}

static void json_hist(struct trawl_json *j, const struct trawl_hist *h)
{
	uint64_t rows[65];
	pow2_rows(h, rows);
	trawl_json_key(j, "histogram");
	trawl_json_array_begin(j);
	for (int k = 0; k < 65; k++) {
		if (!rows[k])
			continue;
		trawl_json_object_begin(j);
		trawl_json_key(j, "low_ns");
		trawl_json_u64(j, k ? (uint64_t)1 << (k - 1) : 0);
		trawl_json_key(j, "count");
		trawl_json_u64(j, rows[k]);
		trawl_json_object_end(j);
	}
	trawl_json_array_end(j);
}

static void json_kv(struct trawl_json *j, const char *k, uint64_t v)
{
	trawl_json_key(j, k);
	trawl_json_u64(j, v);
}

static void json_acts(struct sum *s)
{
	struct trawl_json *j = &s->j;
	trawl_json_key(j, "activities");
	trawl_json_array_begin(j);
	for (size_t i = 0; s->r->act && i < trawl_act_count(s->r->act); i++) {
		const struct trawl_hist *h = &s->st.hist[i];
		const struct trawl_act_counts *c = trawl_act_counts(s->r->act, i);
		trawl_json_object_begin(j);
		trawl_json_key(j, "name");
		trawl_json_cstring(j, trawl_act_def(s->r->act, i)->name);
		trawl_json_key(j, "kind");
		trawl_json_cstring(j, kinds[trawl_act_def(s->r->act, i)->kind]);
		json_kv(j, "count", h->count);
		char total[48];
		trawl_hist_total_text(h, total, sizeof total);
		trawl_json_key(j, "total_ns");
		trawl_json_value_begin(j); /* a JSON number may pass 2^64 */
		fputs(total, j->f);
		json_kv(j, "min_ns", h->min);
		json_kv(j, "mean_ns", trawl_hist_mean(h));
		json_kv(j, "p50_ns", trawl_hist_quantile(h, 0.5));
		json_kv(j, "p90_ns", trawl_hist_quantile(h, 0.9));
		json_kv(j, "p99_ns", trawl_hist_quantile(h, 0.99));
		json_kv(j, "max_ns", h->max);
		json_kv(j, "open", c->open_at_end);
		json_kv(j, "unmatched", c->unmatched_end);
		json_kv(j, "overflow", c->overflow);
		json_hist(j, h);
		trawl_json_object_end(j);
	}
	trawl_json_array_end(j);
}

static void json_states(struct sum *s)
{
	struct trawl_json *j = &s->j;
	trawl_json_key(j, "states");
	trawl_json_array_begin(j);
	for (size_t k = 0; k < s->st.nstates; k++) {
		const struct trawl_stats_state *x = &s->st.states[k];
		char name[128];
		trawl_act_state_name(s->r->act, x->act, x->state, name, sizeof name);
		trawl_json_object_begin(j);
		trawl_json_key(j, "activity");
		trawl_json_cstring(j, trawl_act_def(s->r->act, x->act)->name);
		json_kv(j, "cpu", x->cpu);
		trawl_json_key(j, "state");
		trawl_json_cstring(j, name);
		trawl_json_key(j, "idle");
		trawl_json_bool(j, trawl_act_state_idle(s->r->act, x->act, x->state));
		json_kv(j, "ns", x->ns);
		trawl_json_key(j, "fraction");
		trawl_json_double(j, fraction(s, x->ns));
		trawl_json_key(j, "busy_fraction");
		trawl_json_double(j, fraction(s, busy_ns(s, x->act, x->cpu)));
		trawl_json_object_end(j);
	}
	trawl_json_array_end(j);
}

static void json_out(struct sum *s)
{
	struct trawl_json *j = &s->j;
	trawl_json_object_begin(j);
	json_kv(j, "events_read", s->r->read);
	json_kv(j, "events_kept", s->r->kept);
	json_kv(j, "lost", s->r->info.lost);
	json_kv(j, "span_ns", span_ns(s));
	if (s->r->spec.time)
		json_kv(j, "window_ns", window_ns(s));
	json_acts(s);
	json_states(s);
	json_kv(j, "rate_width_ns", s->st.rate_width);
	trawl_json_key(j, "rate");
	trawl_json_array_begin(j);
	size_t last = 0;
	for (size_t b = 0; b < TRAWL_STATS_RATE_BUCKETS; b++)
		if (s->st.rate[b])
			last = b;
	for (size_t b = 0; s->st.events && b <= last; b++)
		trawl_json_u64(j, s->st.rate[b]);
	trawl_json_array_end(j);
	trawl_json_object_end(j);
}

void events_summary_json(const struct events_run *r, struct trawl_swstats *st, struct trawl_json *j)
{
	struct sum s = { .r = (struct events_run *)r, .st = *st, .j = *j };
	if (st->nstates)
		qsort(st->states, st->nstates, sizeof *st->states, state_cmp);
	json_out(&s);
	*j = s.j;
}

/* One pass: the engine hands finished activities to on_record while the
 * loop counts kept events, so nothing is held per event. The states are
 * sorted only at the end (their index is not used after), and statistics
 * that ran out of memory or states are said and make the exit 1. */
int events_summary(int argc, char **argv)
{
	struct events_run r = { .cmd = "events summary" };
	struct sum s = { .r = &r };
	const char *out_path = NULL;
	int prc, json = 0, csv = 0, threads_seen = 0;
	uint64_t threads = 0;
	const struct cli_option opts[] = {
		EVENTS_ACTIVITY_OPTIONS(&r),
		EVENTS_FORMAT_OPTIONS(&json, &csv),
		CLI_STRING("output", 'o', "FILE", &out_path, "write to FILE"),
		CLI_U64("threads", "N", &threads, 2, &threads_seen,
			"1: everything on one thread; 2 (the default with two cpus or\n"
			"more): the trace is read on a second one, ahead of the rest"),
		EVENTS_FILTER_OPTIONS(&r),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "events summary",
		.usage = "TRACE [--defs FILE.tdef] [options]",
		.description =
			"Statistics of the events that pass the filters and of the activities\n"
			"--defs declares: per activity count, total, min, mean, p50, p90, p99 and\n"
			"max duration (percentiles within 1%) and a duration histogram; per core\n"
			"the time in each state and busy (any state but the idle one) as fractions\n"
			"of the trace (with --time: of the window); events per second over time.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (cli_parse(&cmd, argc, argv, &prc) < 0)
		return prc;
	if ((s.format = events_format(r.cmd, json, csv)) < 0)
		return EXIT_USAGE;
	if (threads_seen && !threads)
		return cli_usage(r.cmd, "--threads is 1 or 2");
	r.dir = argv[0];
	struct trawl_error err;
	/* without --time the engine's records go straight into the
	 * statistics (trawl_swstats_sink: the KEEP test is all on_record does
	 * then, and the kinds come from the same table) */
	int rc = events_run_open(&r, r.spec.time ? on_record : trawl_swstats_sink,
				 r.spec.time ? (void *)&s : (void *)&s.st);
	if (!rc && (trawl_swstats_init(&s.st, r.act ? trawl_act_count(r.act) : 0, &err) ||
		    trawl_swstats_init(&s.rate, 0, &err)))
		rc = cli_report(r.cmd, &err);
	if (!rc && kinds_init(&s)) {
		cli_error(r.cmd, "out of memory");
		rc = EXIT_BAD_INPUT;
	}
	if (!rc)
		rc = cli_output_to(r.cmd, out_path);
	if (rc) {
		events_run_close(&r);
		trawl_swstats_release(&s.st);
		trawl_swstats_release(&s.rate);
		free(s.is_state);
		return rc;
	}
	trawl_swstats_kinds(&s.st, s.is_state, s.nis);
	if (r.act) /* summary reads neither */
		trawl_act_omit(r.act, TRAWL_ACT_NO_DEPTH | TRAWL_ACT_NO_OLDEST);
	events_run_all(&r, threads_seen ? (int)threads : events_threads_default(), count_batch, NULL, &s);
	trawl_swstats_take_events(&s.st, &s.rate);
	trawl_swtrace_info(r.t, &r.info);
	if (r.act && trawl_act_count(r.act) > s.st.nacts) { /* a script's activity that never finished */
		struct trawl_act_record none = { .act = (uint32_t)trawl_act_count(r.act) - 1, .flags = TRAWL_ACT_OPEN };
		trawl_swstats_record(&s.st, &none, 0);
	}
	/* by activity, cpu and state (the index into them is not used again) */
	if (s.st.nstates)
		qsort(s.st.states, s.st.nstates, sizeof *s.st.states, state_cmp);
	if (s.format == EVENTS_JSON) {
		trawl_json_init(&s.j, stdout);
		json_out(&s);
		putchar('\n');
	} else {
		if (s.format == EVENTS_TEXT)
			printf("events: %" PRIu64 " kept of %" PRIu64 " read, %" PRIu64 " lost, over %" PRIu64 " ns\n",
			       r.kept, r.read, r.info.lost, span_ns(&s));
		text_tables(&s, s.format == EVENTS_CSV);
	}
	if (s.st.nomem || s.st.states_lost) {
		cli_error(r.cmd, "statistics incomplete: %s", s.st.nomem ? "out of memory" : "too many distinct states");
		cli_mark_lossy();
	}
	rc = events_run_close(&r);
	trawl_swstats_release(&s.st);
	trawl_swstats_release(&s.rate);
	free(s.is_state);
	return rc;
}
