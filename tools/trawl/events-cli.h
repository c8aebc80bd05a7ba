/* What the `trawl events` verbs in several files share. */
#ifndef TRAWL_EVENTS_CLI_H
#define TRAWL_EVENTS_CLI_H

#include <stddef.h>
#include <stdint.h>

/* Write Barrelfish dump text as the CTF trace directory `out` (new or
 * empty), named from defs_path (may be NULL), timestamps ticks of freq Hz;
 * `name` names the text in errors. An exit status. */
int events_bf_write(const char *text, size_t len, const char *name, const char *defs_path, const char *out,
		    uint64_t freq);

/* trawl events connect */
int events_connect(int argc, char **argv);
/* trawl events seek */
int events_seek(int argc, char **argv);

#endif
