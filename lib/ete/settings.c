/* ETE settings from small files beside a raw trace buffer: trace-unit
 * registers (`trawl ete --config`, `--reg`) and TRBE pointers
 * (`--trbe-file`). Both are ini text read with ete/ini.h, which stays
 * private to lib/ete.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trawl/ete.h"
#include "trawl/number.h"

#include "ete/ini.h"

int trawl_ete_config_set_reg(struct trawl_ete_config *c, const char *name, uint32_t v)
{
	char n[32];
	snprintf(n, sizeof n, "%s", name);
	char *paren = strchr(n, '(');
	if (paren)
		*paren = 0;
	if (!strcasecmp(n, "TRCIDR0")) c->idr0 = v;
	else if (!strcasecmp(n, "TRCIDR1")) c->idr1 = v;
	else if (!strcasecmp(n, "TRCIDR2")) c->idr2 = v;
	else if (!strcasecmp(n, "TRCIDR8")) c->idr8 = v;
	else if (!strcasecmp(n, "TRCCONFIGR")) c->configr = v;
	else if (!strcasecmp(n, "TRCDEVARCH")) c->devarch = v;
	else if (!strcasecmp(n, "TRCTRACEIDR")) c->trace_id = (uint8_t)(v & 0x7f);
	else return 0;
	return 1;
}

enum trawl_status trawl_ete_config_load(struct trawl_ete_config *cfg, const char *path,
					struct trawl_error *err)
{
	struct trawl_ini *ini;
	enum trawl_status st = trawl_ini_load(&ini, path, err);
	if (st != TRAWL_OK)
		return st;
	for (size_t i = 0; i < trawl_ini_count(ini) && st == TRAWL_OK; i++) {
		const struct trawl_ini_entry *e = trawl_ini_at(ini, i);
		uint64_t v;
		if (trawl_u64_parse(e->value, &v) && v <= UINT32_MAX) {
			trawl_ete_config_set_reg(cfg, e->key, (uint32_t)v);
			continue;
		}
		/* other keys (a snapshot device file's) may hold anything, but a
		 * register the decoder uses must not silently keep its default */
		struct trawl_ete_config probe;
		if (!trawl_ete_config_set_reg(&probe, e->key, 0))
			continue;
		st = trawl_error_set(err, TRAWL_ERR_USAGE, "bad %s value '%s' (a 32-bit number)",
				     e->key, e->value);
		trawl_error_at(err, path, e->line, 0, 0);
	}
	trawl_ini_destroy(ini);
	return st;
}

enum trawl_status trawl_ete_trbe_load(const char *path, struct trawl_ete_trbe *out,
				      struct trawl_error *err)
{
	static const char *const keys[] = { "base", "limit", "write", "wrapped" };
	struct trawl_ini *ini;
	enum trawl_status st = trawl_ini_load(&ini, path, err);
	if (st != TRAWL_OK)
		return st;
	out->have = 0;
	for (unsigned k = 0; k < 4; k++) {
		const char *v = NULL;
		for (size_t j = 0; j < trawl_ini_count(ini); j++)
			if (!strcasecmp(trawl_ini_at(ini, j)->key, keys[k]))
				v = trawl_ini_at(ini, j)->value;
		uint64_t x;
		if (!v)
			continue;
		if (!trawl_u64_parse(v, &x)) {
			st = trawl_error_set(err, TRAWL_ERR_USAGE, "bad %s value '%s'", keys[k], v);
			if (err) /* the file, without a line: "FILE: bad limit value 'zz'" */
				snprintf(err->file, sizeof err->file, "%s", path);
			break;
		}
		if (k == 0) out->base = x;
		if (k == 1) out->limit = x;
		if (k == 2) out->write = x;
		if (k == 3) out->wrapped = x != 0;
		out->have |= 1u << k;
	}
	trawl_ini_destroy(ini);
	return st;
}
