/* One number syntax for every input (see trawl/number.h). */
#include "trawl/number.h"

#include <errno.h>
#include <stdlib.h>

int trawl_u64_parse(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return 0;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return 0;
	*out = v;
	return 1;
}
