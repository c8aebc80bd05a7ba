/* The list and text search of an instruction trace over its text, plain
 * or compressed (serve/text.c). */
#ifndef TRAWL_SERVE_TEXT_H
#define TRAWL_SERVE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/index.h"
#include "trawl/text.h"

#define SERVE_LINE_MAX 4096     /* bytes of a line the list shows */

/* The line starting at off: *p its first *shown bytes (without "\r\n", at
 * most SERVE_LINE_MAX; valid until the next read of x) and *next where
 * the line after it starts (the text's size after the last). */
enum trawl_status serve_text_line(struct trawl_text *x, uint64_t off, const char **p, size_t *shown,
				  uint64_t *next, struct trawl_error *err);

/* Byte offset where line `line` starts (from the event holding it, past
 * its first lines): 0, or -1 when the text has no such line. */
int serve_text_line_offset(const struct trawl_index *ix, struct trawl_text *x, uint64_t line,
			   uint64_t *off);
/* The line holding byte offset off. */
uint64_t serve_text_offset_line(const struct trawl_index *ix, struct trawl_text *x, uint64_t off);

/* The first (dir > 0) or last (dir < 0) match of s[0, m) starting in
 * [lo, hi) (it may end past hi): 1 with *at its offset, 0 none, -1 when
 * the text could not be read (err says why). */
int serve_text_find(struct trawl_text *x, uint64_t lo, uint64_t hi, const char *s, size_t m, int dir,
		    uint64_t *at, struct trawl_error *err);

#endif
