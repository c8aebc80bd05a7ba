/* Event definitions: the .tdef parser and the JSON reader on the same
 * bytes, and the generators on whatever parses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/sw-defs.h"
#include "trawl/bf-dump.h"
#include "trawl/sw-activity.h"

/* The activities of what parsed, run over events made from the same bytes
 * (each byte picks a class, a cpu and a value), with a small bound so
 * overflow is reached too. */
static void run_activities(const struct trawl_defs *d, const uint8_t *data, size_t size)
{
	struct trawl_sw_class cls[64];
	size_t n = 0;
	for (size_t i = 0; i < d->nsubsys; i++)
		for (size_t j = 0; j < d->subsys[i].nevents && n < 64; j++)
			trawl_defs_class(&d->subsys[i], &d->subsys[i].events[j], &cls[n++]);
	struct trawl_act *a;
	struct trawl_error err;
	if (!n || trawl_act_create(&a, d, cls, n, 8, NULL, NULL, &err) != TRAWL_OK)
		return;
	struct trawl_sw_event ev = { 0 };
	for (size_t i = 0; i < size; i++) {
		ev.time += data[i] & 7;
		ev.cls = &cls[data[i] % n];
		ev.cpu = data[i] >> 6;
		ev.tid = (data[i] >> 4) & 3;
		for (unsigned f = 0; f < TRAWL_SW_MAX_FIELDS; f++)
			ev.vals[f] = data[i] >> 5;
		trawl_act_feed(a, &ev, data[i] & 1);
	}
	trawl_act_finish(a, ev.time);
	trawl_act_destroy(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_defs *d;
	struct trawl_error err;
	if (trawl_defs_parse(&d, (const char *)data, size, "fuzz.tdef", &err) == TRAWL_OK) {
		free(trawl_defs_to_header(d, "fuzz", "fuzz.tdef"));
		free(trawl_defs_to_ctf(d));
		char *j = trawl_defs_to_json(d);
		struct trawl_defs *back;
		/* what we write we must read back */
		if (j && trawl_defs_parse_json(&back, j, strlen(j), "fuzz.json", &err) != TRAWL_OK)
			abort();
		if (j)
			trawl_defs_destroy(back);
		free(j);
		run_activities(d, data, size);
		trawl_defs_destroy(d);
	}
	if (trawl_defs_parse_json(&d, (const char *)data, size, "fuzz.json", &err) == TRAWL_OK)
		trawl_defs_destroy(d);
	struct trawl_bf_stats st;
	trawl_bf_parse((const char *)data, size, "fuzz.txt", NULL, NULL, &st, &err);
	return 0;
}
