/* Tarmac lexer helpers: table-driven character classes and a cursor over
 * one line. Everything is inline so the hot line shapes compile to plain
 * loops with no calls. */
#ifndef TRAWL_TARMAC_LEX_H
#define TRAWL_TARMAC_LEX_H

#include <stddef.h>
#include <stdint.h>

#define TL_SPACE 1u
#define TL_WORD 2u   /* alphanumerics and _ - . # (a Tarmac "word") */
#define TL_DIGIT 4u
#define TL_HEX 8u

#define TL_NIB_DASH 16u  /* '-': byte not written */
#define TL_NIB_X 17u     /* 'x'/'X': value unknown */
#define TL_NIB_SKIP 0xfeu
#define TL_NIB_BAD 0xffu

extern const uint8_t trawl_tl_class[256];
extern const uint8_t trawl_tl_nibble[256];

static inline int tl_is(char c, unsigned cls)
{
	return (trawl_tl_class[(unsigned char)c] & cls) != 0;
}

/* A cursor over one line: s = line start, p = position, e = end. */
struct tl {
	const char *s, *p, *e;
};

static inline void tl_skipsp(struct tl *l)
{
	while (l->p < l->e && tl_is(*l->p, TL_SPACE))
		l->p++;
}

/* Length of the word at p (0 when p is not at a word character). */
static inline size_t tl_wordlen(const struct tl *l)
{
	const char *q = l->p;
	while (q < l->e && tl_is(*q, TL_WORD))
		q++;
	return (size_t)(q - l->p);
}

static inline int tl_at(const struct tl *l, char c)
{
	return l->p < l->e && *l->p == c;
}

static inline int tl_eol(const struct tl *l)
{
	return l->p >= l->e;
}

/* Are all n characters at s hex digits? */
static inline int tl_allhex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!tl_is(s[i], TL_HEX))
			return 0;
	return n > 0;
}

static inline int tl_alldigits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!tl_is(s[i], TL_DIGIT))
			return 0;
	return n > 0;
}

/* Value of up to 16 hex digits (caller checked they are hex). */
static inline uint64_t tl_hex64(const char *s, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = (v << 4) | trawl_tl_nibble[(unsigned char)s[i]];
	return v;
}

/* Scan a run of hex digits at p (stops at the first non-hex character);
 * returns its length, and in *v the value of its last 16 digits. One pass:
 * the digit table rejects everything that is not 0-9a-fA-F. */
static inline size_t tl_hexrun(const char *p, const char *e, uint64_t *v)
{
	const uint8_t *n = trawl_tl_nibble;
	const unsigned char *q = (const unsigned char *)p, *end = (const unsigned char *)e;
	uint64_t x = 0;
	/* eight digits at a time with no branch per digit: Tarmac values are
	 * mostly 8 or 16 digits long */
	while (end - q >= 8) {
		unsigned d0 = n[q[0]], d1 = n[q[1]], d2 = n[q[2]], d3 = n[q[3]];
		unsigned d4 = n[q[4]], d5 = n[q[5]], d6 = n[q[6]], d7 = n[q[7]];
		if ((d0 | d1 | d2 | d3 | d4 | d5 | d6 | d7) & 0xf0)
			break;
		x = (x << 32) | (uint64_t)(d0 << 28 | d1 << 24 | d2 << 20 | d3 << 16 | d4 << 12 |
					   d5 << 8 | d6 << 4 | d7);
		q += 8;
	}
	while (q < end) {
		uint8_t d = n[*q];
		if (d > 15)
			break;
		x = (x << 4) | d;
		q++;
	}
	*v = x;
	return (size_t)(q - (const unsigned char *)p);
}

/* Does a token end at q (end of line, space, or punctuation)? */
static inline int tl_tokend(const char *q, const char *e)
{
	return q >= e || !tl_is(*q, TL_WORD);
}

static inline int tl_eq(const char *s, size_t n, const char *lit, size_t litlen)
{
	if (n != litlen)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] != lit[i])
			return 0;
	return 1;
}

#define TL_EQ(s, n, lit) tl_eq((s), (n), lit, sizeof(lit) - 1)

#endif
