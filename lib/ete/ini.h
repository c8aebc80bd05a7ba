/* The small INI parser behind the ETE readers (snapshot directories,
 * --config register files, TRBE pointer files). Internal to lib/ete: other
 * code reads those files through trawl_ete_snapshot_open,
 * trawl_ete_config_load and trawl_ete_trbe_load. */
#ifndef TRAWL_ETE_INI_H
#define TRAWL_ETE_INI_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

struct trawl_ini;
struct trawl_ini_entry {
	const char *section;
	const char *key;
	const char *value;
	uint32_t line;
};
/* Parse INI text ([section], key=value, ; and # comments). Keys keep their
 * original spelling; lookups ignore case. */
enum trawl_status trawl_ini_parse(struct trawl_ini **out, const char *text, size_t len,
				  const char *file, struct trawl_error *err);
enum trawl_status trawl_ini_load(struct trawl_ini **out, const char *path, struct trawl_error *err);
/* First value of key in section, or NULL. */
const char *trawl_ini_get(const struct trawl_ini *ini, const char *section, const char *key);
size_t trawl_ini_count(const struct trawl_ini *ini);
const struct trawl_ini_entry *trawl_ini_at(const struct trawl_ini *ini, size_t i);
void trawl_ini_destroy(struct trawl_ini *ini);
/* A file an ini names, relative to dir unless absolute ("" when too long:
 * the open then fails with a clear name-less error). */
void trawl_ini_join(char *out, size_t size, const char *dir, const char *name);

#endif
