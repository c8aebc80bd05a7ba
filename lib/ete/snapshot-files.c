/* The files a snapshot directory is made of, for its identity (docs/ete.md,
 * "As a trace"): snapshot.ini, the device files of [device_list] and every
 * [dumpN] file they name, the trace metadata file and every buffer file it
 * lists. Only ini files are read (buffers and dumps are named, not opened),
 * so a stat of the snapshot stays cheap. A file that cannot be read names
 * nothing more; opening the snapshot then says why. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "trawl/ete.h"

#include "ete/ini.h"

/* Every value of key in sections whose name starts with prefix (any
 * section: prefix ""), as a path beside dir. */
static void each_value(const struct trawl_ini *ini, const char *prefix, const char *key,
		       const char *dir, trawl_ete_file_fn fn, void *ctx)
{
	char path[4096 + 256];
	for (size_t i = 0; i < trawl_ini_count(ini); i++) {
		const struct trawl_ini_entry *e = trawl_ini_at(ini, i);
		if (strncasecmp(e->section, prefix, strlen(prefix)) != 0 || strcasecmp(e->key, key) != 0)
			continue;
		trawl_ini_join(path, sizeof path, dir, e->value);
		if (path[0])
			fn(ctx, path);
	}
}

/* An ini file: it, then (children) the files it names. */
static struct trawl_ini *named_ini(const char *dir, const char *name, trawl_ete_file_fn fn, void *ctx)
{
	char path[4096 + 256];
	struct trawl_ini *ini = NULL;
	trawl_ini_join(path, sizeof path, dir, name);
	if (!path[0])
		return NULL;
	fn(ctx, path);
	return trawl_ini_load(&ini, path, NULL) == TRAWL_OK ? ini : NULL;
}

int trawl_ete_snapshot_probe(const char *dir)
{
	char p[4096];
	struct stat sb;
	snprintf(p, sizeof p, "%s/snapshot.ini", dir);
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

void trawl_ete_snapshot_files(const char *dir, trawl_ete_file_fn fn, void *ctx)
{
	struct trawl_ini *top = named_ini(dir, "snapshot.ini", fn, ctx);
	if (!top)
		return;
	for (size_t i = 0; i < trawl_ini_count(top); i++) {
		const struct trawl_ini_entry *e = trawl_ini_at(top, i);
		if (strcasecmp(e->section, "device_list") != 0)
			continue;
		struct trawl_ini *dev = named_ini(dir, e->value, fn, ctx);
		if (dev)
			each_value(dev, "dump", "file", dir, fn, ctx);
		trawl_ini_destroy(dev);
	}
	const char *meta = trawl_ini_get(top, "trace", "metadata");
	struct trawl_ini *trace = meta ? named_ini(dir, meta, fn, ctx) : NULL;
	if (trace)
		each_value(trace, "", "file", dir, fn, ctx);
	trawl_ini_destroy(trace);
	trawl_ini_destroy(top);
}
