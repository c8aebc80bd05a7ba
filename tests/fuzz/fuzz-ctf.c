/* CTF trace reader: input = metadata text, a NUL byte, then stream bytes,
 * split in two streams. The events are read one at a time and, from a
 * second open of the same bytes, in batches (of 1 to 17, from the input's
 * size): the two must agree event for event, and in damage. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"

static int same(const struct trawl_sw_event *a, const struct trawl_sw_event *b)
{
	if (a->time != b->time || a->cpu != b->cpu || a->tid != b->tid || a->stream != b->stream ||
	    a->offset != b->offset || a->cls->id != b->cls->id)
		return 0;
	for (unsigned i = 0; i < a->cls->nfields; i++)
		if (a->vals[i] != b->vals[i])
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t mlen = nul ? (size_t)(nul - data) : size;
	const uint8_t *stream = nul ? nul + 1 : data + size;
	size_t slen = nul ? size - mlen - 1 : 0;
	const uint8_t *streams[2] = { stream, stream + slen / 2 };
	size_t lens[2] = { slen, slen - slen / 2 };
	struct trawl_swtrace *t, *b;
	struct trawl_error err;
	if (trawl_swtrace_open_mem(&t, (const char *)data, mlen, streams, lens, 2, &err) != TRAWL_OK)
		return 0;
	if (trawl_swtrace_open_mem(&b, (const char *)data, mlen, streams, lens, 2, &err) != TRAWL_OK)
		abort(); /* the same bytes opened once */
	struct trawl_sw_event ev, batch[17];
	size_t n = 0, max = 1 + size % 17, got = 0, at = 0;
	while (trawl_swtrace_next(t, &ev) == TRAWL_OK && n < 1000000) {
		if (at == got) {
			got = trawl_swtrace_next_batch(b, batch, max);
			at = 0;
		}
		if (at == got || !same(&ev, &batch[at]))
			abort();
		at++;
		n++;
	}
	if (n < 1000000 && (at != got || trawl_swtrace_next_batch(b, batch, max) != 0))
		abort();
	const struct trawl_error *dt = trawl_swtrace_damage(t), *db = trawl_swtrace_damage(b);
	if (n < 1000000 && (!dt != !db || (dt && dt->offset != db->offset)))
		abort();
	trawl_swtrace_close(t);
	trawl_swtrace_close(b);
	return 0;
}
