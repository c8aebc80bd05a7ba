/* trawl events seek: the event at a time, in the whole trace or in one
 * cpu's or thread's events, through the software-event index (built when
 * missing), by bisection, so a view can jump to any time at once. */
#include <inttypes.h>
#include <string.h>

#include "events-cli.h"
#include "index-cli.h"
#include "trawl/number.h"

static void print_hit(const struct index_cli *c, uint64_t ev, const struct trawl_index_event *x,
		      const struct trawl_index_sw_event *s)
{
	if (c->json)
		printf("{\"event\":%" PRIu64 ",\"time\":%" PRIu64 ",\"cpu\":%u,\"tid\":%" PRIu32
		       ",\"stream\":%" PRIu32 ",\"subsys\":%u,\"id\":%u,\"arg\":%" PRIu32 "}\n",
		       ev, x->time, x->cpu, s->tid, s->stream, s->subsys, s->event, s->arg);
	else
		printf("event %" PRIu64 ": t=%" PRIu64 " cpu %u tid %" PRIu32 " subsys %u event %u arg %" PRIu32
		       "\n", ev, x->time, x->cpu, s->tid, s->subsys, s->event, s->arg);
}

int events_seek(int argc, char **argv)
{
	struct index_cli c;
	uint64_t cpu = 0, tid = 0, t;
	int have_cpu = 0, have_tid = 0, rc;
	memset(&c, 0, sizeof c);
	c.to.cmd = "events seek";
	const struct cli_option opts[] = {
		CLI_U64("cpu", "N", &cpu, 65535, &have_cpu, "among the events of cpu N"),
		CLI_U64("thread", "TID", &tid, UINT32_MAX, &have_tid, "among the events of thread TID"),
		INDEX_OPTIONS(&c),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "events seek",
		.usage = "TRACE TIME [--cpu N | --thread TID] [--index FILE] [--json]",
		.description =
			"Prints the last event at or before TIME (ns of the trace clock, as\n"
			"'events list --abs' prints it) in the whole trace, or among one cpu's or\n"
			"one thread's events, using the trace's index (built when missing).\n",
		.options = opts,
		.min_args = 2, .max_args = 2, .missing = "give a trace and a time",
	};
	if (index_cli_parse(&c, &cmd, argc, argv, &rc) < 0)
		return rc;
	if (!trawl_u64_parse(argv[1], &t))
		return cli_usage("events", "seek: '%s' is not a time in ns", argv[1]);
	if (have_cpu && have_tid)
		return cli_usage("events", "seek: give --cpu or --thread, not both");
	if ((rc = index_cli_open(&c)))
		return rc;
	struct trawl_error err;
	trawl_error_clear(&err);
	enum trawl_index_sw_scope scope = have_cpu ? TRAWL_SW_SCOPE_CPU
					  : have_tid ? TRAWL_SW_SCOPE_THREAD : TRAWL_SW_SCOPE_ALL;
	uint64_t ev;
	struct trawl_index_event x;
	struct trawl_index_sw_event s;
	enum trawl_status st = trawl_index_sw_at_time(c.ix, scope, have_cpu ? cpu : tid, t, &ev, &err);
	if (st == TRAWL_ERR_NOT_FOUND) {
		if (c.json)
			printf("null\n");
		else
			printf("no event at or before %" PRIu64 "\n", t);
		return index_cli_end(&c, EXIT_OK);
	}
	if (st || (st = trawl_index_event(c.ix, ev, &x, &err)) || (st = trawl_index_sw_event(c.ix, ev, &s, &err))) {
		rc = index_cli_report(&c, &err);
		return index_cli_end(&c, rc);
	}
	print_hit(&c, ev, &x, &s);
	return index_cli_end(&c, EXIT_OK);
}
