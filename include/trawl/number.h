/* Reading a number the way every trawl input takes one: the command line,
 * snapshot and TRBE settings, image load offsets. */
#ifndef TRAWL_NUMBER_H
#define TRAWL_NUMBER_H

#include <stdint.h>

/* A whole unsigned number, decimal or 0x.. hex, with nothing after it and
 * no sign (strtoull would take "-1" as 2^64 - 1). A leading 0 is decimal,
 * not C's octal: "--limit 010" is 10, as a user means it. Returns 1 and
 * sets *out, or 0. */
int trawl_u64_parse(const char *s, uint64_t *out);

#endif
