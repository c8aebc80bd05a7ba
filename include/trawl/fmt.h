/* Number formatting for output loops that print millions of fields, where
 * printf's format parsing costs more than the digits. Each writes at p and
 * returns the end (no terminating NUL); the caller leaves room: 20 bytes
 * for a decimal, 16 for hex. */
#ifndef TRAWL_FMT_H
#define TRAWL_FMT_H

#include <stdint.h>
#include <string.h>

static inline char *trawl_fmt_dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* lower-case hex without leading zeros ("0" for 0) */
static inline char *trawl_fmt_hex(char *p, uint64_t v)
{
	int digits = 1;
	while (digits < 16 && (v >> (4 * digits)))
		digits++;
	for (int i = digits - 1; i >= 0; i--)
		*p++ = "0123456789abcdef"[(v >> (4 * i)) & 0xf];
	return p;
}

/* copy a NUL-terminated string of at most max bytes (memchr, not the POSIX
 * strnlen, so the header compiles in plain C11) */
static inline char *trawl_fmt_str(char *p, const char *s, size_t max)
{
	const char *z = memchr(s, 0, max);
	size_t n = z ? (size_t)(z - s) : max;
	memcpy(p, s, n);
	return p + n;
}

#endif
