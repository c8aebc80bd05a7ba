/* Tarmac lexer helpers: table-driven character classes and a cursor over
 * one line. Everything is inline so the hot line shapes compile to plain
 * loops with no calls. */
#ifndef TRAWL_TARMAC_LEX_H
#define TRAWL_TARMAC_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

#define TL_ONES 0x0101010101010101ull
#define TL_HIGH 0x8080808080808080ull

/* Which of 8 ASCII bytes are hex digits: the high bit of each byte of the
 * result (SWAR range checks; each byte keeps its borrow to itself because
 * its high bit is set before subtracting). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t tl_swar_hexmask(uint64_t x)
{
	uint64_t h = x | TL_HIGH;
	uint64_t digit = (h - 0x30 * TL_ONES) & ~(h - 0x3a * TL_ONES);
	uint64_t l = (x | 0x20 * TL_ONES) | TL_HIGH;
	uint64_t alpha = (l - 0x61 * TL_ONES) & ~(l - 0x67 * TL_ONES);
	return (digit | alpha) & ~x & TL_HIGH;
}

/* Value of 8 hex digits (first character in the lowest byte). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint32_t tl_swar_hex8(uint64_t x)
{
	uint64_t v = (x & 0x0f0f0f0f0f0f0f0full) + ((x >> 6) & TL_ONES) * 9;
	v = ((v & 0x00ff00ff00ff00ffull) << 4) | ((v >> 8) & 0x00ff00ff00ff00ffull);
	v = ((v & 0x0000ffff0000ffffull) << 8) | ((v >> 16) & 0x0000ffff0000ffffull);
	return (uint32_t)(((v & 0xffffffffull) << 16) | (v >> 32));
}

/* Scan a run of hex digits at p (stops at the first non-hex character);
 * returns its length, and in *v the value of its last 16 digits. Eight
 * characters at a time while the line has them, with no branch per digit. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t tl_hexrun(const char *p, const char *e, uint64_t *v)
{
	const char *q = p;
	uint64_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (e - q >= 8) {
		uint64_t w;
		memcpy(&w, q, 8);
		uint64_t ok = tl_swar_hexmask(w);
		if (ok == TL_HIGH) {
			x = (x << 32) | tl_swar_hex8(w);
			q += 8;
			continue;
		}
		unsigned k = (unsigned)__builtin_ctzll(~ok & TL_HIGH) / 8;
		if (k) {
			/* k digits, then something else: pad in front with '0's */
			uint64_t ww = (w << (8 * (8 - k))) | (0x3030303030303030ull >> (8 * k));
			x = (x << (4 * k)) | tl_swar_hex8(ww);
			q += k;
		}
		*v = x;
		return (size_t)(q - p);
	}
#endif
	while (q < e) {
		uint8_t d = trawl_tl_nibble[(unsigned char)*q];
		if (d > 15)
			break;
		x = (x << 4) | d;
		q++;
	}
	*v = x;
	return (size_t)(q - p);
}

/* Value of 8 decimal digits (first character in the lowest byte). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint32_t tl_swar_dec8(uint64_t x)
{
	x -= 0x3030303030303030ull;
	x = x * 10 + (x >> 8);
	x = (((x & 0x000000ff000000ffull) * (100 + (1000000ull << 32))) +
	     (((x >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32)))) >> 32;
	return (uint32_t)x;
}

/* Scan a run of decimal digits at p; returns its length and its value in
 * *v (meaningful up to 19 digits). Eight at a time, like tl_hexrun. */
static inline size_t tl_decrun(const char *p, const char *e, uint64_t *v)
{
	static const uint32_t pow10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };
	const char *q = p;
	uint64_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (e - q >= 8) {
		uint64_t w;
		memcpy(&w, q, 8);
		uint64_t h = w | TL_HIGH;
		uint64_t ok = (h - 0x30 * TL_ONES) & ~(h - 0x3a * TL_ONES) & ~w & TL_HIGH;
		if (ok == TL_HIGH) {
			x = x * 100000000u + tl_swar_dec8(w);
			q += 8;
			continue;
		}
		unsigned k = (unsigned)__builtin_ctzll(~ok & TL_HIGH) / 8;
		if (k) {
			uint64_t ww = (w << (8 * (8 - k))) | (0x3030303030303030ull >> (8 * k));
			x = x * pow10[k] + tl_swar_dec8(ww);
			q += k;
		}
		*v = x;
		return (size_t)(q - p);
	}
#endif
	(void)pow10;
	while (q < e && (unsigned)(*q - '0') < 10)
		x = x * 10 + (unsigned)(*q++ - '0');
	*v = x;
	return (size_t)(q - p);
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
