/* The key table: one entry per action, used for dispatch and for help. */
#ifndef TRAWL_TUI_KEYS_H
#define TRAWL_TUI_KEYS_H

#include <stddef.h>

struct key_help {
	const char *keys;
	const char *what;
};

/* Every key the browser understands, in the order help lists them. */
const struct key_help *keys_help(size_t *count);

#endif
