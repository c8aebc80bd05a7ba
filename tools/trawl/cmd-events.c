/* trawl events: list and count recorded software events (CTF traces
 * written by the recorder, `trawl listen` or import-bf), and import
 * Barrelfish trace dumps. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "events-cli.h"
#include "trawl/rec-ctf.h"
#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"
#include "trawl/sw-defs.h"
#include "trawl/bf-dump.h"

static const char events_help[] =
	"usage: trawl events list TRACE [--limit N] [--abs] [filters]\n"
	"       trawl events stats TRACE [filters]\n"
	"       trawl events activities TRACE --defs A.tdef [filters]\n"
	"       trawl events summary TRACE [--defs A.tdef] [filters]\n"
	"       trawl events recover TRACE\n"
	"       trawl events import-bf DUMP --defs DEFS.json -o OUT [--freq HZ]\n"
	"       trawl events connect HOST:PORT --bf --defs DEFS.json -o OUT [--freq HZ]\n"
	"       trawl events seek TRACE TIME [--cpu N | --thread TID]\n"
	"\n"
	"TRACE is a CTF trace directory written by a program using <trawl/rec.h>,\n"
	"by 'trawl listen' or by import-bf.\n"
	"\n"
	"  list       print every event merged by time: time since the first event\n"
	"             in seconds (--abs: clock value in ns), cpu, thread, name, fields\n"
	"  stats      events per subsystem and event, lost events, time span\n"
	"  activities the spans, states and messages A.tdef declares (or a\n"
	"             --script opens), one per line\n"
	"  summary    their statistics: count, total, min, mean, p50/p90/p99, max,\n"
	"             histograms, time per core in each state, events per second\n"
	"  recover    write into TRACE the events a program that crashed (or was\n"
	"             killed, or called _exit) left in its buffer files (.ring-N),\n"
	"             and remove those; list and stats read them anyway\n"
	"  import-bf  convert a Barrelfish trace dump ('#' header lines, then\n"
	"             'CORE TIMESTAMP RAWHEX' lines) into a CTF trace OUT, naming\n"
	"             events from DEFS (.json from 'trawl defs', or a .tdef file);\n"
	"             timestamps are ticks of --freq HZ (default 1000000000: ns)\n"
	"  connect    receive the dumps of a Bfscope server (--bf) until interrupted\n"
	"             or the server closes, and write them as import-bf does\n"
	"  seek       the last event at or before TIME (ns), in the trace or one\n"
	"             cpu's or thread's events, through the trace's index\n"
	"\n"
	"Filters, the same for every verb that shows events: --cpu, --thread,\n"
	"--subsys, --event, --time, --where, --script (docs/analysis.md).\n"
	"A damaged trace is read up to the damage; the file and byte offset of the\n"
	"damage are reported and the exit status is 1. 'trawl events VERB --help'\n"
	"explains one verb.\n";

#include "events-act.h"
#include "events-run.h"


/* Say where events came from when a program did not stop cleanly. */
static void note_rings(const char *dir, const struct trawl_swtrace_info *in, int recovering)
{
	if (in->rings && !in->recovered && in->signal && !recovering)
		cli_error("events", "%s: the program died by signal %u; the recorder wrote its buffers out first",
			  dir, in->signal);
	else if (in->rings && !recovering) {
		char how[64] = "without stopping the recorder";
		if (in->signal)
			snprintf(how, sizeof how, "by signal %u", in->signal);
		cli_error("events", "%s: %" PRIu64 " events read from %u buffer file(s) of a program that ended %s "
			  "('trawl events recover %s' writes them into the trace)", dir, in->recovered, in->rings,
			  how, dir);
	}
	if (in->live_rings)
		cli_error("events", "%s: %u buffer file(s) belong to a program still recording: only what it "
			  "flushed is read", dir, in->live_rings);
}

int events_open_trace(const char *dir, struct trawl_swtrace **t)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_swtrace_open(t, dir, &err) != TRAWL_OK)
		return cli_report("events", &err);
	struct trawl_swtrace_info in;
	trawl_swtrace_info(*t, &in);
	note_rings(dir, &in, 0);
	return EXIT_OK;
}

static int events_recover(int argc, char **argv)
{
	static const struct cli_option opts[] = { CLI_END };
	static const struct cli_command cmd = {
		.name = "events recover",
		.usage = "TRACE",
		.description =
			"Writes into TRACE the events a program that crashed (or was killed, or\n"
			"called _exit) left in its buffer files (.ring-N), and removes those;\n"
			"'trawl events list' and 'stats' read them anyway.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "recover takes one trace directory",
	};
	int prc;
	if (cli_parse(&cmd, argc, argv, &prc) < 0)
		return prc;
	struct trawl_error err;
	trawl_error_clear(&err);
	struct trawl_swtrace *t;
	if (trawl_swtrace_open(&t, argv[0], &err) != TRAWL_OK)
		return cli_report("events", &err);
	struct trawl_swtrace_info in;
	trawl_swtrace_info(t, &in);
	note_rings(argv[0], &in, 1);
	int rc = EXIT_OK;
	if (trawl_swtrace_recover(t, argv[0], &err) != TRAWL_OK)
		rc = cli_report("events", &err);
	else
		printf("recovered %" PRIu64 " events from %u buffer file(s)%s\n", in.recovered, in.rings,
		       in.signal ? " (the recorder saw a fatal signal)" : "");
	int rd = events_report_damage(t);
	trawl_swtrace_close(t);
	if (rc == EXIT_OK && in.live_rings)
		rc = EXIT_BAD_INPUT;
	return rc ? rc : rd;
}

int events_report_damage(struct trawl_swtrace *t)
{
	const struct trawl_error *d = trawl_swtrace_damage(t);
	if (!d)
		return EXIT_OK;
	fflush(stdout);
	return cli_report("events", d);
}

static void print_value(const struct trawl_sw_class *c, unsigned i, uint64_t v)
{
	if (c->fields[i].type >= TRAWL_SW_S8)
		printf(" %s=%" PRId64, c->fields[i].name, (int64_t)v);
	else
		printf(" %s=%" PRIu64, c->fields[i].name, v);
}

/* A script's computed fields (fields = { name = function(e) ... end }),
 * after the event's own, as text; nil is left out. -1 when one failed: the
 * event is then not printed at all (half a line would look whole). */
static int computed_text(struct events_run *r, const struct trawl_sw_event *ev, char *out, size_t size)
{
	char buf[256];
	size_t n = 0;
	out[0] = 0;
	for (size_t i = 0; r->scr && i < trawl_script_nfields(r->scr); i++) {
		if (r->script_failed || trawl_script_field(r->scr, i, ev, buf, sizeof buf, &r->script_err)) {
			r->script_failed = 1;
			return -1;
		}
		if (buf[0] && n < size) {
			int k = snprintf(out + n, size - n, " %s=%s", trawl_script_field_name(r->scr, i), buf);
			n += k > 0 ? (size_t)k : 0;
		}
	}
	return 0;
}

/* The library merges the streams by time, so listing is one loop over
 * trawl_swtrace_next. Relative times are printed as seconds and nanoseconds
 * from integers, never through a double, so no digit is made up; damage met
 * while reading is reported after everything readable has been printed, so
 * the exit says 1 but no event is held back. */
static int events_list(int argc, char **argv)
{
	struct events_run r = { .cmd = "events list" };
	uint64_t limit = UINT64_MAX;
	int abs_time = 0, prc;
	const struct cli_option opts[] = {
		CLI_U64("limit", "N", &limit, 0, NULL, "print at most N events"),
		CLI_FLAG("abs", 0, &abs_time, "times as clock values in ns, not seconds since the first event"),
		EVENTS_FILTER_OPTIONS(&r),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "events list",
		.usage = "TRACE [--limit N] [--abs] [filters]",
		.description =
			"Prints every event merged by time: time since the first event in\n"
			"seconds (--abs: clock value in ns), cpu, thread, name, fields.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (cli_parse(&cmd, argc, argv, &prc) < 0)
		return prc;
	r.dir = argv[0];
	int rc = events_run_open(&r, NULL, NULL), keep;
	if (rc) {
		events_run_close(&r);
		return rc;
	}
	struct trawl_sw_event ev;
	uint64_t n = 0;
	while (n < limit && events_run_next(&r, &ev, &keep) == TRAWL_OK) {
		if (!keep)
			continue;
		char computed[4096];
		if (computed_text(&r, &ev, computed, sizeof computed))
			break;
		uint64_t t = ev.time - r.first;
		if (abs_time)
			printf("%20" PRIu64, ev.time);
		else
			printf("%4" PRIu64 ".%09" PRIu64, t / 1000000000u, t % 1000000000u);
		printf("  cpu %-3u tid %-7u %s", ev.cpu, ev.tid, ev.cls->name);
		for (unsigned i = 0; i < ev.cls->nfields; i++)
			print_value(ev.cls, i, ev.vals[i]);
		fputs(computed, stdout);
		putchar('\n');
		n++;
	}
	return events_run_close(&r);
}

struct count {
	uint32_t id;
	const char *name;
	uint64_t n;
};

/* Counts live in an array parallel to info.classes and are indexed by the
 * class pointer each event carries, so counting needs no lookup. Classes are
 * sorted by id (subsystem in the high 16 bits), so one pass prints each
 * subsystem's total before its events; info is read again after the loop
 * because the lost count is summed from the packets as they are read. */
static int events_stats(int argc, char **argv)
{
	struct events_run r = { .cmd = "events stats" };
	const struct cli_option opts[] = { EVENTS_FILTER_OPTIONS(&r), CLI_END };
	const struct cli_command cmd = {
		.name = "events stats",
		.usage = "TRACE [filters]",
		.description = "Counts events per subsystem and event, lost events and the time span.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "stats takes one trace directory",
	};
	int prc;
	if (cli_parse(&cmd, argc, argv, &prc) < 0)
		return prc;
	r.dir = argv[0];
	int rc = events_run_open(&r, NULL, NULL);
	if (rc) {
		events_run_close(&r);
		return rc;
	}
	struct trawl_swtrace *t = r.t;
	struct trawl_swtrace_info info;
	trawl_swtrace_info(t, &info);
	struct count *counts = calloc(info.nclasses ? info.nclasses : 1, sizeof *counts);
	if (!counts) {
		events_run_close(&r);
		cli_error("events", "out of memory");
		return EXIT_BAD_INPUT;
	}
	for (size_t i = 0; i < info.nclasses; i++) {
		counts[i].id = info.classes[i].id;
		counts[i].name = info.classes[i].name;
	}
	/* a batch at a time (events_run_batch: the same events and verdicts
	 * as events_run_next, without a call per event) */
	const struct trawl_sw_event *evs;
	const uint8_t *kp;
	uint64_t total = 0, first = 0, last = 0;
	for (size_t n; (n = events_run_batch(&r, &evs, &kp));)
		for (size_t i = 0; i < n; i++) {
			if (!kp[i])
				continue;
			if (total == 0)
				first = evs[i].time;
			last = evs[i].time;
			total++;
			counts[evs[i].cls - info.classes].n++;
		}
	trawl_swtrace_info(t, &info);
	printf("events: %" PRIu64 "\n", total);
	printf("lost: %" PRIu64 "\n", info.lost);
	printf("streams: %zu\n", info.nstreams);
	if (total) {
		uint64_t span = last - first;
		printf("time span: %" PRIu64 ".%09" PRIu64 " s (%" PRIu64 " .. %" PRIu64 " ns)\n", span / 1000000000u,
		       span % 1000000000u, first, last);
	} else {
		printf("time span: 0\n");
	}
	printf("\n%-8s %-8s %12s  %s\n", "subsys", "event", "count", "name");
	/* classes are sorted by id, so a subsystem's events are together */
	for (size_t i = 0; i < info.nclasses;) {
		uint32_t s = counts[i].id >> 16;
		uint64_t sub = 0;
		size_t j = i;
		for (; j < info.nclasses && counts[j].id >> 16 == s; j++)
			sub += counts[j].n;
		if (sub) {
			const char *colon = strchr(counts[i].name, ':');
			int len = colon ? (int)(colon - counts[i].name) : (int)strlen(counts[i].name);
			printf("%-8u %-8s %12" PRIu64 "  %.*s\n", s, "*", sub, len, counts[i].name);
			for (size_t k = i; k < j; k++)
				if (counts[k].n)
					printf("%-8u %-8u %12" PRIu64 "  %s\n", s, counts[k].id & 0xffff, counts[k].n,
					       counts[k].name);
		}
		i = j;
	}
	free(counts);
	return events_run_close(&r);
}

/* ---- import-bf ---- */

struct bf_core {
	uint32_t core;
	struct trawl_bf_event *ev;
	size_t n, cap;
};

struct bf_ctx {
	struct bf_core *cores;
	size_t ncores;
	int nomem;
};

static int bf_collect(void *ctx, const struct trawl_bf_event *ev)
{
	struct bf_ctx *b = ctx;
	struct bf_core *c = NULL;
	for (size_t i = 0; i < b->ncores; i++)
		if (b->cores[i].core == ev->core)
			c = &b->cores[i];
	if (!c) {
		void *n = realloc(b->cores, (b->ncores + 1) * sizeof *b->cores);
		if (!n)
			return b->nomem = 1;
		b->cores = n;
		c = &b->cores[b->ncores++];
		memset(c, 0, sizeof *c);
		c->core = ev->core;
	}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;
		void *n = realloc(c->ev, ncap * sizeof *c->ev);
		if (!n)
			return b->nomem = 1;
		c->ev = n;
		c->cap = ncap;
	}
	c->ev[c->n++] = *ev;
	return 0;
}

int events_load_defs(const char *path, struct trawl_defs **d)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	return trawl_defs_load(d, path, &err) ? cli_report("events", &err) : EXIT_OK;
}

static int write_all(int fd, const void *data, size_t len)
{
	const uint8_t *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* An existing folder that holds nothing (not even hidden files). */
static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	int empty = 1;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	errno = EEXIST;
	return empty;
}

/* The first event (in dump order, over every core) whose argument does not
 * fit its defined class's first field is damage: it and the events after
 * it are dropped, as after a bad line. Events of a core are in dump order
 * here (collected so; sorted by time only when written). */
static void bf_check_args(struct bf_ctx *b, const struct trawl_ctf_meta *meta, const char *text, size_t len,
			  const char *name, struct trawl_error *damage)
{
	uint64_t first = UINT64_MAX;
	const struct trawl_bf_event *bad = NULL;
	const struct trawl_ctf_class *bad_cls = NULL;
	for (size_t ci = 0; ci < b->ncores; ci++)
		for (size_t i = 0; i < b->cores[ci].n && b->cores[ci].ev[i].line < first; i++) {
			const struct trawl_bf_event *e = &b->cores[ci].ev[i];
			const struct trawl_ctf_class *cls = trawl_ctf_meta_find(meta, (uint32_t)(e->word >> 32));
			uint64_t v;
			if (cls && cls->nfields && !trawl_bf_arg_value(cls->fields[0].type, (uint32_t)e->word, &v)) {
				first = e->line;
				bad = e;
				bad_cls = cls;
				break;
			}
		}
	if (!bad)
		return;
	uint32_t arg = (uint32_t)bad->word;
	trawl_error_set(damage, TRAWL_ERR_FORMAT,
			"argument %u (0x%x) does not fit field '%s' (%s) of %s: this event and the rest of the dump "
			"are not read", (unsigned)arg, (unsigned)arg, bad_cls->fields[0].name,
			trawl_sw_type_name(bad_cls->fields[0].type), bad_cls->name);
	trawl_bf_error_at_word(damage, text, len, name, first);
	for (size_t ci = 0; ci < b->ncores; ci++) {
		struct bf_core *c = &b->cores[ci];
		size_t keep = 0;
		while (keep < c->n && c->ev[keep].line < first)
			keep++;
		c->n = keep;
	}
}

/* One core's events as one stream file of 64 KiB packets, sorted by time
 * (a dump interleaves cores); an event no definition names gets a class
 * made up from its ids, so nothing in the dump is dropped. */
static int write_core_stream(struct bf_core *c, const char *out, struct trawl_ctf_meta *meta,
			     struct trawl_ctf_packet *pkt, uint64_t freq)
{
	char path[4096];
	qsort(c->ev, c->n, sizeof *c->ev, trawl_bf_event_cmp);
	snprintf(path, sizeof path, "%s/stream-core%u", out, c->core);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		cli_error("events", "cannot write '%s': %s", path, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	uint64_t seq = 0;
	for (size_t i = 0; i < c->n;) {
		trawl_ctf_packet_begin(pkt);
		for (; i < c->n && pkt->len < 65536; i++) {
			uint64_t w = c->ev[i].word;
			uint32_t id = (uint32_t)(w >> 32);
			const struct trawl_ctf_class *cls = trawl_ctf_meta_find(meta, id);
			if (!cls) {
				struct trawl_ctf_class g = { .id = id, .nfields = 1 };
				snprintf(g.name, sizeof g.name, "subsys%u:event%u", id >> 16, id & 0xffff);
				strcpy(g.fields[0].name, "arg");
				g.fields[0].type = TRAWL_REC_U32;
				trawl_ctf_meta_add(meta, &g);
				cls = trawl_ctf_meta_find(meta, id);
			}
			uint64_t vals[TRAWL_REC_MAX_FIELDS] = { (uint32_t)w };
			/* it fits: events_bf_write kept only the events whose arguments do */
			(void)trawl_bf_arg_value(cls ? cls->fields[0].type : 0, (uint32_t)w, &vals[0]);
			unsigned __int128 ns = (unsigned __int128)c->ev[i].time * 1000000000u / freq;
			if (!cls || trawl_ctf_packet_event(pkt, cls, (uint64_t)ns, vals) != 0) {
				cli_error("events", "out of memory");
				close(fd);
				return EXIT_BAD_INPUT;
			}
		}
		trawl_ctf_packet_finish(pkt, seq++, 0, c->core, 0);
		if (write_all(fd, pkt->buf, pkt->len) != 0) {
			cli_error("events", "cannot write '%s': %s", path, strerror(errno));
			close(fd);
			return EXIT_BAD_INPUT;
		}
	}
	close(fd);
	return EXIT_OK;
}

/* The whole dump is collected first, grouped by core, because a dump
 * interleaves cores and CTF wants one time-ordered stream per core
 * (write_core_stream). The definitions' classes are added before any stream
 * is written, so only ids they do not name get made-up classes; metadata
 * goes last, once every class is known. Damage (a bad line, an argument
 * that does not fit its field, a cut last line) ends the dump: the events
 * before it are written, then it is reported (exit 1), as a damaged CTF
 * stream is read up to the damage. */
int events_bf_write(const char *text, size_t len, const char *name, const char *defs_path, const char *out,
		    uint64_t freq)
{
	int rc = EXIT_OK;
	struct trawl_defs *defs = NULL;
	struct bf_ctx b = { 0 };
	struct trawl_ctf_meta meta;
	struct trawl_ctf_packet pkt = { 0 };
	struct trawl_error damage; /* reported at the end, after what could be written */
	trawl_error_clear(&damage);
	trawl_ctf_meta_init(&meta);
	snprintf(meta.tracer, sizeof meta.tracer, "trawl-import-bf");
	snprintf(meta.procname, sizeof meta.procname, "barrelfish");
	if (defs_path && (rc = events_load_defs(defs_path, &defs)))
		goto out;
	struct trawl_bf_stats bs;
	enum trawl_status ps = trawl_bf_parse(text, len, name, bf_collect, &b, &bs, &damage);
	if (b.nomem || (ps != TRAWL_OK && ps != TRAWL_ERR_FORMAT)) {
		if (b.nomem)
			trawl_error_set(&damage, TRAWL_ERR_NOMEM, "out of memory");
		rc = cli_report("events", &damage);
		trawl_error_clear(&damage);
		goto out;
	}
	if (ps == TRAWL_OK && bs.cut_line) {
		trawl_bf_error_cut(&damage, name, &bs);
	}
	for (size_t i = 0; defs && i < defs->nsubsys; i++)
		for (size_t j = 0; j < defs->subsys[i].nevents; j++) {
			struct trawl_sw_class sc;
			struct trawl_ctf_class cc;
			trawl_defs_class(&defs->subsys[i], &defs->subsys[i].events[j], &sc);
			trawl_sw_class_to_ctf(&sc, &cc);
			trawl_ctf_meta_add(&meta, &cc);
		}
	/* the events up to a bad line all precede it: only a misfit before
	 * it can come first */
	bf_check_args(&b, &meta, text, len, name, &damage);
	/* ticks of --freq become ns: one that does not fit would wrap around
	 * and land out of its order */
	for (size_t ci = 0; ci < b.ncores; ci++)
		for (size_t i = 0; i < b.cores[ci].n; i++) {
			const struct trawl_bf_event *e = &b.cores[ci].ev[i];
			if ((unsigned __int128)e->time * 1000000000u / freq > UINT64_MAX) {
				cli_error("events", "%s:%" PRIu64 ": timestamp %" PRIu64 " at --freq %" PRIu64
					  " is past 2^64 ns", name, e->line, e->time, freq);
				rc = EXIT_BAD_INPUT;
				goto out;
			}
		}
	if (mkdir(out, 0777) != 0 && (errno != EEXIST || !dir_is_empty(out))) {
		/* a trace already there would mix its streams with these */
		if (errno == EEXIST)
			cli_error("events", "'%s' exists and is not an empty folder: give a new one", out);
		else
			cli_error("events", "cannot create '%s': %s", out, strerror(errno));
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	for (size_t ci = 0; ci < b.ncores && rc == EXIT_OK; ci++)
		if (b.cores[ci].n) /* a core whose events all came after damage has none */
			rc = write_core_stream(&b.cores[ci], out, &meta, &pkt, freq);
	if (rc)
		goto out;
	int r = trawl_ctf_meta_write(&meta, out);
	if (r) {
		cli_error("events", "cannot write '%s/metadata': %s", out, strerror(-r));
		rc = EXIT_BAD_INPUT;
	}
out:
	/* the events before the damage are written (or could not be: said
	 * above); the dump was not used whole */
	if (damage.status) {
		int d = cli_report("events", &damage);
		if (!rc)
			rc = d;
	}
	for (size_t i = 0; i < b.ncores; i++)
		free(b.cores[i].ev);
	free(b.cores);
	trawl_ctf_packet_release(&pkt);
	trawl_ctf_meta_release(&meta);
	trawl_defs_destroy(defs);
	return rc;
}

static int events_import_bf(int argc, char **argv)
{
	const char *dump = NULL, *defs_path = NULL, *out = NULL;
	uint64_t freq = 1000000000u;
	int prc;
	const struct cli_option opts[] = {
		CLI_STRING("defs", 0, "DEFS", &defs_path,
			   "event names: the .json of 'trawl defs', or a .tdef file"),
		CLI_STRING("output", 'o', "OUT", &out, "the CTF trace directory to write"),
		CLI_U64("freq", "HZ", &freq, 0, NULL, "timestamps are ticks of HZ (default 1000000000: ns)"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "events import-bf",
		.usage = "DUMP --defs DEFS.json -o OUT [--freq HZ]",
		.description =
			"Converts a Barrelfish trace dump ('#' header lines, then\n"
			"'CORE TIMESTAMP RAWHEX' lines) into a CTF trace OUT. A word's 32-bit\n"
			"argument is its event's first field. A dump is read up to its first\n"
			"damage (a bad line, an argument that does not fit its field): the\n"
			"events before it are written, the damage is named, exit status 1.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "import-bf needs DUMP and -o OUT",
	};
	if (cli_parse(&cmd, argc, argv, &prc) < 0)
		return prc;
	dump = argv[0];
	if (freq == 0)
		return cli_usage("events", "--freq must be at least 1");
	if (!out)
		return cli_usage("events", "import-bf needs DUMP and -o OUT");
	uint8_t *text = NULL;
	size_t len;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_file_read(dump, &text, &len, &err))
		return cli_report("events", &err);
	int rc = events_bf_write((const char *)text, len, dump, defs_path, out, freq);
	free(text);
	return rc;
}

/* A verb table: each verb parses its own options with its own table
 * (argv[0] is the verb), so 'trawl events list --help' explains list. */
int cmd_events(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} verbs[] = {
		{ "list", events_list }, { "stats", events_stats },
		{ "import-bf", events_import_bf }, { "recover", events_recover },
		{ "activities", events_activities }, { "summary", events_summary },
		{ "connect", events_connect }, { "seek", events_seek },
	};
	if (argc < 2)
		return cli_usage("events", "expected list, stats, activities, summary, recover, import-bf, "
				 "connect or seek");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(events_help, stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].fn(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return cli_usage("events", "unknown option '%s' (options follow the verb: "
				 "trawl events VERB --help)", argv[1]);
	return cli_usage("events", "unknown subcommand '%s'", argv[1]);
}
