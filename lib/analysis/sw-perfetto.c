/* See sw-perfetto.h. Track layout (pid, tid):
 *   pid 1 "cores":   tid = cpu: message ends (send/receive slices, flows);
 *                    tid = 65536 * (act + 1) + cpu: one state activity's states
 *   pid 2 "threads": tid = thread: events (instants), thread-keyed spans
 * Spans keyed by cpu or a field need not nest with each other, which
 * complete slices on one track must, so they are async slices (each pair
 * gets its own id). Times are us with 3 decimals from the first event,
 * written from integers so no ns is lost. */
#include "trawl/sw-perfetto.h"
#include "trawl/json.h"

#include "analysis/act-map.h"
#include "analysis/analysis-int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define STATE_TID(act, cpu) (65536ull * ((act) + 1) + (cpu))

struct trawl_swperf {
	FILE *f;
	const struct trawl_defs *defs;
	const struct trawl_act *act;
	uint64_t t0, ids;
	int started;
	struct act_map tracks;       /* (pid, tid) seen, for their names */
	int nomem;
};

static void ts(const struct trawl_swperf *p, const char *key, uint64_t t)
{
	uint64_t d = t - p->t0;
	fprintf(p->f, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, d / 1000, d % 1000);
}

static void dur(const struct trawl_swperf *p, uint64_t d)
{
	fprintf(p->f, ",\"dur\":%" PRIu64 ".%03" PRIu64, d / 1000, d % 1000);
}

static void track(struct trawl_swperf *p, unsigned pid, uint64_t tid)
{
	if (!act_map_put(&p->tracks, pid, tid))
		p->nomem = 1;
	fprintf(p->f, ",\n{\"pid\":%u,\"tid\":%" PRIu64, pid, tid);
}

static void name(FILE *f, const char *s)
{
	fputs(",\"name\":", f);
	trawl_json_write_string(f, s, strlen(s));
}

enum trawl_status trawl_swperf_begin(struct trawl_swperf **out, FILE *f, const char *process,
				     const struct trawl_defs *defs, const struct trawl_act *act,
				     struct trawl_error *err)
{
	struct trawl_swperf *p = calloc(1, sizeof *p);
	*out = p;
	if (!p)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	p->f = f;
	p->defs = defs;
	p->act = act;
	fputs("{\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"cores\"}},\n"
	      "{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":",
	      f);
	trawl_json_write_string(f, process ? process : "threads", strlen(process ? process : "threads"));
	fputs("}}", f);
	return TRAWL_OK;
}

void trawl_swperf_event(struct trawl_swperf *p, const struct trawl_sw_event *ev)
{
	if (!p->started) {
		p->started = 1;
		p->t0 = ev->time;
	}
	track(p, 2, ev->tid);
	fputs(",\"ph\":\"i\",\"s\":\"t\"", p->f);
	name(p->f, ev->cls->name);
	ts(p, "ts", ev->time);
	fprintf(p->f, ",\"args\":{\"cpu\":%u", ev->cpu);
	for (unsigned i = 0; i < ev->cls->nfields; i++) {
		fputs(",", p->f);
		trawl_json_write_string(p->f, ev->cls->fields[i].name, strlen(ev->cls->fields[i].name));
		if (ev->cls->fields[i].type >= TRAWL_SW_S8)
			fprintf(p->f, ":%" PRId64, (int64_t)ev->vals[i]);
		else
			fprintf(p->f, ":%" PRIu64, ev->vals[i]);
	}
	fputs("}}", p->f);
}

static void args(struct trawl_swperf *p, const struct trawl_act_record *r, const char *key)
{
	fputs(",\"args\":{\"key\":", p->f);
	trawl_json_write_string(p->f, key, strlen(key));
	fprintf(p->f, ",\"cpu\":%u,\"cpu_end\":%u,\"tid\":%u,\"depth\":%u,\"begin_ns\":%" PRIu64
		      ",\"end_ns\":%" PRIu64 "%s}}",
		r->cpu, r->cpu_end, r->tid, r->depth, r->begin, r->end, r->flags & TRAWL_ACT_OPEN ? ",\"open\":true" : "");
}

/* A message: a short slice at each end on the cores' tracks, bound by a
 * flow (Perfetto draws the arrow between the two slices). */
static void message(struct trawl_swperf *p, const struct trawl_act_record *r, const char *act, const char *key)
{
	uint64_t id = ++p->ids;
	track(p, 1, r->cpu);
	fputs(",\"ph\":\"X\",\"cat\":\"message\"", p->f);
	name(p->f, act);
	ts(p, "ts", r->begin);
	dur(p, 1);
	args(p, r, key);
	if (r->flags & TRAWL_ACT_OPEN)
		return; /* never received: no arrow */
	track(p, 1, r->cpu);
	fprintf(p->f, ",\"ph\":\"s\",\"cat\":\"message\",\"id\":%" PRIu64, id);
	name(p->f, act);
	ts(p, "ts", r->begin);
	fputs("}", p->f);
	track(p, 1, r->cpu_end);
	fputs(",\"ph\":\"X\",\"cat\":\"message\"", p->f);
	name(p->f, act);
	ts(p, "ts", r->end);
	dur(p, 1);
	args(p, r, key);
	track(p, 1, r->cpu_end);
	fprintf(p->f, ",\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"message\",\"id\":%" PRIu64, id);
	name(p->f, act);
	ts(p, "ts", r->end);
	fputs("}", p->f);
}

/* Which Perfetto shape an activity takes follows from whether it can
 * break nesting on its track: states (one at a time per core) and
 * thread-keyed spans (innermost first) are complete slices; cpu- and
 * field-keyed spans may interleave, so they are async pairs. */
void trawl_swperf_activity(struct trawl_swperf *p, const struct trawl_act_record *r)
{
	const struct trawl_defs_activity *d = trawl_act_def(p->act, r->act);
	char key[128];
	if (d->kind == TRAWL_DEFS_STATE)
		trawl_act_state_name(p->act, r->act, r->key, key, sizeof key);
	else
		snprintf(key, sizeof key, "%" PRIu64, r->key);
	if (d->kind == TRAWL_DEFS_MESSAGE) {
		message(p, r, d->name, key);
		return;
	}
	if (d->kind == TRAWL_DEFS_STATE || d->key == TRAWL_DEFS_KEY_THREAD) {
		if (d->kind == TRAWL_DEFS_STATE)
			track(p, 1, STATE_TID(r->act, r->cpu));
		else
			track(p, 2, r->tid);
		fputs(",\"ph\":\"X\",\"cat\":", p->f);
		trawl_json_write_string(p->f, d->name, strlen(d->name));
		name(p->f, d->kind == TRAWL_DEFS_STATE ? key : d->name);
		ts(p, "ts", r->begin);
		dur(p, r->end - r->begin);
		args(p, r, key);
		return;
	}
	/* async: begin and end share cat, name and id */
	uint64_t id = ++p->ids;
	for (int end = 0; end < 2; end++) {
		if (d->key == TRAWL_DEFS_KEY_CPU)
			track(p, 1, r->cpu);
		else
			track(p, 2, r->tid);
		fprintf(p->f, ",\"ph\":\"%c\",\"id\":%" PRIu64 ",\"cat\":", end ? 'e' : 'b', id);
		trawl_json_write_string(p->f, d->name, strlen(d->name));
		name(p->f, d->name);
		ts(p, "ts", end ? r->end : r->begin);
		if (end)
			fputs("}", p->f);
		else
			args(p, r, key);
	}
}

static void track_name(struct trawl_swperf *p, uint32_t pid, uint64_t tid)
{
	char buf[128];
	if (pid == 2)
		snprintf(buf, sizeof buf, "thread %" PRIu64, tid);
	else if (tid < 65536)
		snprintf(buf, sizeof buf, "cpu %" PRIu64, tid);
	else
		snprintf(buf, sizeof buf, "cpu %" PRIu64 " %s", tid % 65536, trawl_act_def(p->act, tid / 65536 - 1)->name);
	fprintf(p->f, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%" PRIu64 ",\"name\":\"thread_name\",\"args\":{\"name\":",
		pid, tid);
	trawl_json_write_string(p->f, buf, strlen(buf));
	/* cores first, in cpu order; each state track just below its core */
	fprintf(p->f, "}},\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%" PRIu64
		      ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%" PRIu64 "}}",
		pid, tid, pid == 1 ? (tid % 65536) * 4096 + tid / 65536 : tid);
}

enum trawl_status trawl_swperf_end(struct trawl_swperf *p, struct trawl_error *err)
{
	for (size_t i = 0; p->tracks.slots && i <= p->tracks.mask; i++)
		if (p->tracks.slots[i].tag)
			track_name(p, p->tracks.slots[i].tag, p->tracks.slots[i].key);
	fputs("\n],\"displayTimeUnit\":\"ns\"}\n", p->f);
	int nomem = p->nomem;
	FILE *f = p->f;
	act_map_free(&p->tracks);
	free(p);
	if (nomem)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory (some tracks are not named)");
	return analysis_io_status(f, err);
}
