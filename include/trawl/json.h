/* Writing JSON: one escaping rule and one writer for every --json output and
 * every export, so the same name comes out as the same JSON everywhere.
 *
 * Strings: valid UTF-8 passes through unchanged; a byte that does not belong
 * to a valid UTF-8 sequence (traces are bytes, not text) is written as
 * \u00XX, the byte read as Latin-1, so the output is always valid UTF-8 and
 * still says which byte it was. '"' and '\\' are escaped, control
 * characters and DEL written as \n, \t, ... or \u00XX. */
#ifndef TRAWL_JSON_H
#define TRAWL_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A quoted JSON string of s[0..len). */
void trawl_json_write_string(FILE *f, const char *s, size_t len);

/* The writer puts the commas and the colons, so a value that is left out
 * (an event that could not be read) never leaves ",," or a dangling key.
 * Nesting deeper than TRAWL_JSON_MAX_DEPTH is a caller bug and is clamped. */
#define TRAWL_JSON_MAX_DEPTH 64

struct trawl_json {
	FILE *f;
	unsigned depth;
	int after_key;
	uint64_t nonempty; /* bit d: the container at depth d has a member */
};

void trawl_json_init(struct trawl_json *j, FILE *f);
void trawl_json_object_begin(struct trawl_json *j);
void trawl_json_object_end(struct trawl_json *j);
void trawl_json_array_begin(struct trawl_json *j);
void trawl_json_array_end(struct trawl_json *j);
/* The key of the next member of the open object. */
void trawl_json_key(struct trawl_json *j, const char *key);

void trawl_json_string(struct trawl_json *j, const char *s, size_t len);
void trawl_json_cstring(struct trawl_json *j, const char *s);
void trawl_json_u64(struct trawl_json *j, uint64_t v);
void trawl_json_i64(struct trawl_json *j, int64_t v);
/* Finite numbers with up to 6 decimals; NaN and infinities as null. */
void trawl_json_double(struct trawl_json *j, double v);
void trawl_json_bool(struct trawl_json *j, int v);
void trawl_json_null(struct trawl_json *j);
/* An address as the string "0x..." (JSON numbers lose bits past 2^53). */
void trawl_json_hex(struct trawl_json *j, uint64_t v);
/* Start a value whose text the caller writes itself to j->f (for example a
 * string of hex digits written byte by byte between quotes). */
void trawl_json_value_begin(struct trawl_json *j);

#endif
