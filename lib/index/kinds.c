/* The index kinds by number and name: one table, so a kind added later
 * (the software-event index) is one more entry here and in the reader's
 * dispatch (open.c, idx_kind_open). */
#include <string.h>

#include "trawl/index.h"

static const struct {
	uint32_t kind;
	const char *name;
} kinds[] = {
	{ TRAWL_INDEX_KIND_FULL, "full" },
	{ TRAWL_INDEX_KIND_COMPACT, "compact" },
};

#define NKINDS (sizeof kinds / sizeof kinds[0])

const char *trawl_index_kind_name(uint32_t kind)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i].kind == kind)
			return kinds[i].name;
	return NULL;
}

uint32_t trawl_index_kind_parse(const char *name)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return kinds[i].kind;
	return 0;
}

uint32_t trawl_index_kind_list(size_t i)
{
	return i < NKINDS ? kinds[i].kind : 0;
}
