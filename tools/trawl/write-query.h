/* The write queries, last-write (dir -1) and next-write (dir 1): the two
 * commands differ only in direction and help text. */
#ifndef TRAWL_WRITE_QUERY_H
#define TRAWL_WRITE_QUERY_H

#include "index-cli.h"

int write_query_run(int argc, char **argv, const char *name, int dir);

#endif
