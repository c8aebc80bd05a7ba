/* libFuzzer harness: the /proc/kallsyms parser, then lookups by address
 * (each must return a symbol at or below it) and by name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_kallsyms *k;
	if (trawl_kallsyms_parse(&k, (const char *)data, size, "fuzz", NULL) != TRAWL_OK)
		return 0;
	uint64_t probes[] = { 0, 1, 0xffff800008000000ull, UINT64_MAX, size };
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		uint64_t start = 0;
		const char *name = trawl_kallsyms_at(k, probes[i], &start);
		if (name && (start > probes[i] || !*name))
			abort();
	}
	uint64_t a;
	(void)trawl_kallsyms_named(k, "_text", &a);
	(void)trawl_kallsyms_count(k);
	trawl_kallsyms_free(k);
	return 0;
}
