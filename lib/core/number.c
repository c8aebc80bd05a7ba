/* One number syntax for every input (see trawl/number.h). */
#include "trawl/number.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

int trawl_u64_parse(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return 0;
	/* decimal or 0x hex, never octal: strtoull's base 0 read 010 as 8 */
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	/* strtoull would skip a space, a sign or a second 0x there */
	if (!isxdigit((unsigned char)digits[0]) || (hex && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')))
		return 0;
	errno = 0;
	unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
	if (errno || *end)
		return 0;
	*out = v;
	return 1;
}
