/* Bfscope framing (what `trawl events connect` runs on a server's bytes)
 * and the dump parser behind it: the input is fed in pieces whose size
 * comes from its first byte, so length fields split across reads are
 * exercised; each complete dump is parsed as text. */
#include <stdint.h>
#include <stdlib.h>

#include "trawl/bf-dump.h"

static int on_dump(void *ctx, const char *text, size_t len)
{
	size_t *n = ctx;
	if (len > TRAWL_BFSCOPE_MAX_DUMP)
		abort(); /* the bound the client relies on */
	struct trawl_error err;
	trawl_bf_parse(text, len, "fuzz", NULL, NULL, NULL, &err);
	*n += len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = (size_t)data[0] + 1, total = 0;
	data++;
	size--;
	struct trawl_bfscope *p;
	struct trawl_error err;
	if (trawl_bfscope_create(&p, &err) != TRAWL_OK)
		return 0;
	for (size_t off = 0; off < size; off += step) {
		size_t k = size - off < step ? size - off : step;
		if (trawl_bfscope_feed(p, data + off, k, on_dump, &total, &err) != TRAWL_OK)
			break;
	}
	size_t declared;
	if (trawl_bfscope_pending(p, &declared) > TRAWL_BFSCOPE_HEADER + TRAWL_BFSCOPE_MAX_DUMP)
		abort();
	trawl_bfscope_destroy(p);
	return 0;
}
