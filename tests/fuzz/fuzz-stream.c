/* Stream protocol parser (what `trawl listen` runs on every connection):
 * the input is fed in pieces whose sizes come from its first byte, with a
 * small chunk limit, so buffering and limits are exercised too. The first
 * byte's top bit turns checksum checking off, so that mutated inputs also
 * reach the checks behind the checksums; bit 6 sets a memory limit. */
#include <stdint.h>
#include <stdlib.h>

#include "trawl/sw-event.h"
#include "trawl/sw-stream.h"

static int count_cb(void *ctx, const struct trawl_sp_item *it)
{
	size_t *n = ctx;
	*n += it->len + it->nevents + it->round;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = (size_t)(data[0] & 0x3f) + 1, items = 0;
	int skip = data[0] & 0x80, limited = data[0] & 0x40;
	data++;
	size--;
	struct trawl_sp_parser *p;
	struct trawl_error err;
	if (trawl_sp_parser_create(&p, 8192, &err) != TRAWL_OK)
		return 0;
	if (skip)
		trawl_sp_parser_skip_checksums(p);
	size_t bound = 8192 + 80 + TRAWL_SP_MAX_CLASSES * (sizeof(struct trawl_sw_class) + 4);
	if (limited) {
		bound = 4096 + 32 * (sizeof(struct trawl_sw_class) + 4);
		trawl_sp_parser_set_limit(p, bound);
	}
	for (size_t off = 0; off < size; off += step) {
		size_t k = size - off < step ? size - off : step;
		if (trawl_sp_parser_feed(p, data + off, k, count_cb, &items, &err) != TRAWL_OK)
			break;
		if (trawl_sp_parser_buffered(p) > bound)
			abort(); /* the memory bound the listener relies on */
	}
	trawl_sp_parser_destroy(p);
	return 0;
}
