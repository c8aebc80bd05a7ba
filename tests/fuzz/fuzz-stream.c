/* Stream protocol parser (what `trawl listen` runs on every connection):
 * the input is fed in pieces whose sizes come from its first byte, with a
 * small chunk limit, so buffering and limits are exercised too. */
#include <stdint.h>
#include <stdlib.h>

#include "trawl/swevents.h"

static int count_cb(void *ctx, const struct trawl_sp_item *it)
{
	size_t *n = ctx;
	*n += it->len + it->nevents;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = (size_t)data[0] % 97 + 1, items = 0;
	data++;
	size--;
	struct trawl_sp_parser *p;
	struct trawl_error err;
	if (trawl_sp_parser_create(&p, 8192, &err) != TRAWL_OK)
		return 0;
	for (size_t off = 0; off < size; off += step) {
		size_t k = size - off < step ? size - off : step;
		if (trawl_sp_parser_feed(p, data + off, k, count_cb, &items, &err) != TRAWL_OK)
			break;
		if (trawl_sp_parser_buffered(p) > 8192 + 72 + TRAWL_SP_MAX_CLASSES * (sizeof(struct trawl_sw_class) + 4))
			abort(); /* the memory bound the listener relies on */
	}
	trawl_sp_parser_destroy(p);
	return 0;
}
