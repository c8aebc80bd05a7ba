/* CTF trace reader: input = metadata text, a NUL byte, then stream bytes
 * (a second NUL-free split is not needed: one stream). */
#include <stdint.h>
#include <string.h>

#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t mlen = nul ? (size_t)(nul - data) : size;
	const uint8_t *stream = nul ? nul + 1 : data + size;
	size_t slen = nul ? size - mlen - 1 : 0;
	const uint8_t *streams[2] = { stream, stream + slen / 2 };
	size_t lens[2] = { slen, slen - slen / 2 };
	struct trawl_swtrace *t;
	struct trawl_error err;
	if (trawl_swtrace_open_mem(&t, (const char *)data, mlen, streams, lens, 2, &err) != TRAWL_OK)
		return 0;
	struct trawl_sw_event ev;
	size_t n = 0;
	while (trawl_swtrace_next(t, &ev) == TRAWL_OK && n < 1000000)
		n++;
	trawl_swtrace_close(t);
	return 0;
}
