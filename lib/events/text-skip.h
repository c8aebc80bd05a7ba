/* Blanks and comments in the C-like text formats read in lib/events (CTF
 * metadata, the .tdef definitions file): one skipping rule for both
 * lexers, counting lines for the positions errors name. */
#ifndef TRAWL_EVENTS_TEXT_SKIP_H
#define TRAWL_EVENTS_TEXT_SKIP_H

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>

/* The position after the blanks, block comments and line comments (//,
 * and # too when hash_comments) at pos in s[0, len). *line and
 * *line_start follow the newlines passed. */
static inline size_t text_skip(const char *s, size_t len, size_t pos, uint64_t *line,
			       size_t *line_start, int hash_comments)
{
	for (;;) {
		while (pos < len && isspace((unsigned char)s[pos])) {
			if (s[pos] == '\n') {
				++*line;
				*line_start = pos + 1;
			}
			pos++;
		}
		if (pos < len && ((hash_comments && s[pos] == '#') ||
				  (s[pos] == '/' && pos + 1 < len && s[pos + 1] == '/'))) {
			while (pos < len && s[pos] != '\n')
				pos++;
			continue;
		}
		if (pos + 1 < len && s[pos] == '/' && s[pos + 1] == '*') {
			size_t p = pos + 2;
			while (p + 1 < len && !(s[p] == '*' && s[p + 1] == '/')) {
				if (s[p] == '\n') {
					++*line;
					*line_start = p + 1;
				}
				p++;
			}
			pos = p + 2 <= len ? p + 2 : len;
			continue;
		}
		return pos;
	}
}

#endif
