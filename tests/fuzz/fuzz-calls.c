/* Fuzz the call analyses: the input is Tarmac text (lenient reading), fed
 * to the call detector, the profile, the flame-graph tree and its writers,
 * the Perfetto writer and the stuck-loop detector. Hostile traces (random
 * branches, returns to nowhere, SP jumping about, exceptions without ends)
 * must never crash, hang or read out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/calls.h"
#include "trawl/reader.h"
#include "trawl/stuck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_input *in = NULL;
	struct trawl_reader *r = NULL;
	struct trawl_calls *c = NULL;
	struct trawl_stuck *s = NULL;
	struct trawl_reader_options opt = { .format = TRAWL_FORMAT_TARMAC, .lenient = 1 };
	if (trawl_input_open_memory(&in, data, size, "fuzz", NULL, NULL) != TRAWL_OK)
		return 0;
	if (trawl_reader_open_input(&r, in, &opt, NULL) != TRAWL_OK)
		return 0; /* the reader owns the input, even on failure */
	struct trawl_calls_options copt = { .max_nodes = 100000 };
	if (trawl_calls_create(&c, &copt, NULL) != TRAWL_OK ||
	    trawl_stuck_create(&s, 8, 2, NULL) != TRAWL_OK)
		goto out;
	uint64_t safe = 0, end = 0;
	for (;;) {
		struct trawl_event_batch b;
		if (trawl_reader_next(r, &b, NULL) != TRAWL_OK)
			break;
		int certain = trawl_stuck_add(s, &b);
		/* what truncate writes as it goes is never taken back, never
		 * runs ahead of the events read */
		uint64_t now = trawl_stuck_safe_offset(s);
		if (b.count && !certain)
			end = b.events[b.count - 1].offset + b.events[b.count - 1].length;
		if (now < safe || (!certain && now > end))
			abort();
		safe = now;
		if (trawl_calls_add(c, &b, NULL) != TRAWL_OK)
			break;
	}
	trawl_calls_finish(c);
	struct trawl_stuck_result res;
	trawl_stuck_result(s, &res);
	if (res.stuck && res.cut_offset != safe)
		abort();
	FILE *sink = fopen("/dev/null", "w");
	if (sink) {
		struct trawl_profile p;
		if (trawl_profile_build(&p, c, NULL) == TRAWL_OK)
			trawl_profile_release(&p);
		struct trawl_cct t;
		if (trawl_cct_build(&t, c, NULL) == TRAWL_OK) {
			trawl_cct_write_folded(&t, sink, NULL);
			trawl_cct_write_svg(&t, sink, "fuzz", NULL);
			trawl_cct_release(&t);
		}
		struct trawl_perfetto_options po = { .use_timestamps = 1 };
		trawl_calls_write_perfetto(c, sink, &po, NULL);
		fclose(sink);
	}
out:
	trawl_stuck_destroy(s);
	trawl_calls_destroy(c);
	trawl_reader_close(r);
	return 0;
}
