/* Event definitions: the .tdef parser and the JSON reader on the same
 * bytes, and the generators on whatever parses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/sw-defs.h"
#include "trawl/bf-dump.h"

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
		trawl_defs_destroy(d);
	}
	if (trawl_defs_parse_json(&d, (const char *)data, size, "fuzz.json", &err) == TRAWL_OK)
		trawl_defs_destroy(d);
	struct trawl_bf_stats st;
	trawl_bf_parse((const char *)data, size, "fuzz.txt", NULL, NULL, &st, &err);
	return 0;
}
