/* Arm "trace and debug snapshot" directories.
 *
 *   file          section            keys used
 *   snapshot.ini  [device_list]      deviceN = device ini file
 *                 [trace]            metadata = trace.ini
 *   device .ini   [device]           name, class (core | trace_source), type
 *                 [regs]             NAME[(annotations)] = value
 *                 [dumpN]            file, address, length, offset
 *   trace.ini     [trace_buffers]    buffers = list of buffer sections
 *                 [bufferN]          name, file, format
 *                 [source_buffers]   source = buffer name
 *                 [core_trace_sources] core = source
 *
 * Every [dumpN] of every core goes into one program image.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "trawl/ete.h"
#include "trawl/file.h"

#include "ete/ini.h"

static int parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || *end)
		return 0;
	*out = v;
	return 1;
}


#define join trawl_ini_join

/* Register value by name, ignoring "(id:..)" style annotations. */
static int reg_value(const struct trawl_ini *ini, const char *name, uint32_t *out)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < trawl_ini_count(ini); i++) {
		const struct trawl_ini_entry *e = trawl_ini_at(ini, i);
		if (strcasecmp(e->section, "regs") != 0)
			continue;
		if (strncasecmp(e->key, name, nl) != 0 || (e->key[nl] != 0 && e->key[nl] != '('))
			continue;
		uint64_t v;
		if (!parse_u64(e->value, &v))
			return -1;
		*out = (uint32_t)v;
		return 1;
	}
	return 0;
}

/* A trace source device (type ETE* or ETM4*): its registers from [regs],
 * with the defaults a snapshot may leave out (an ETE without TRCDEVARCH is
 * ETE 1.0; an ETM4 has none), checked by trawl_ete_config_derive. */
static enum trawl_status load_source(struct trawl_ete_snapshot *s, const struct trawl_ini *ini,
				     const char *name, const char *type, const char *path,
				     struct trawl_error *err)
{
	void *ns = realloc(s->sources, (s->nsources + 1) * sizeof *s->sources);
	if (!ns)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	s->sources = ns;
	struct trawl_ete_source *src = &s->sources[s->nsources];
	memset(src, 0, sizeof *src);
	snprintf(src->name, sizeof src->name, "%s", name);
	struct trawl_ete_config *c = &src->cfg;
	uint32_t tid = 0;
	static const char *const regs[] = { "TRCIDR0", "TRCIDR1", "TRCIDR2", "TRCIDR8",
					    "TRCCONFIGR", "TRCDEVARCH", "TRCTRACEIDR" };
	uint32_t *dst[] = { &c->idr0, &c->idr1, &c->idr2, &c->idr8, &c->configr,
			    &c->devarch, &tid };
	for (size_t i = 0; i < 7; i++) {
		if (reg_value(ini, regs[i], dst[i]) < 0) {
			enum trawl_status st = trawl_error_set(err, TRAWL_ERR_FORMAT, "bad value for %s",
							       regs[i]);
			trawl_error_at(err, path, 0, 0, 0);
			return st;
		}
	}
	if (!strncasecmp(type, "ETE", 3) && c->devarch == 0)
		c->devarch = 0x47705a13; /* ETE without TRCDEVARCH: assume 1.0 */
	if (!strncasecmp(type, "ETM4", 4))
		c->devarch = 0;
	c->trace_id = (uint8_t)(tid & 0x7f);
	enum trawl_status st = trawl_ete_config_derive(c, err);
	if (st != TRAWL_OK) {
		trawl_error_at(err, path, 0, 0, 0);
		return st;
	}
	s->nsources++;
	return TRAWL_OK;
}

/* A core device: every [dumpN] (file, address, optional length and offset)
 * goes into the one program image. A dump that cannot be read only leaves
 * a hole, counted as a warning, as is one whose bytes differ from an
 * earlier dump's where they overlap (the earlier one's are used, as
 * OpenCSD does); a section without a numeric address is an error at its
 * line. */
static enum trawl_status load_dumps(struct trawl_ete_snapshot *s, const struct trawl_ini *ini,
				    const char *path, struct trawl_error *err)
{
	for (size_t i = 0; i < trawl_ini_count(ini); i++) {
		const struct trawl_ini_entry *e = trawl_ini_at(ini, i);
		if (strncasecmp(e->section, "dump", 4) != 0 || strcasecmp(e->key, "file") != 0)
			continue;
		uint64_t addr = 0, len = 0, off = 0;
		const char *a = trawl_ini_get(ini, e->section, "address");
		const char *l = trawl_ini_get(ini, e->section, "length");
		const char *o = trawl_ini_get(ini, e->section, "offset");
		if (!parse_u64(a, &addr) || (l && !parse_u64(l, &len)) ||
		    (o && !parse_u64(o, &off))) {
			enum trawl_status st = trawl_error_set(err, TRAWL_ERR_FORMAT,
				"[%s] needs a numeric address (and length/offset)", e->section);
			trawl_error_at(err, path, e->line, 1, 0);
			return st;
		}
		char dump[4096 + 256];
		join(dump, sizeof dump, s->dir, e->value);
		struct trawl_error derr;
		trawl_error_clear(&derr);
		unsigned conflicts = trawl_ete_image_conflicts(s->image, NULL, 0);
		if (trawl_ete_image_add_file(s->image, dump, addr, off, len, &derr) != TRAWL_OK) {
			if (!s->nwarnings++)
				trawl_error_format(&derr, s->warning, sizeof s->warning);
		} else if (trawl_ete_image_conflicts(s->image, NULL, 0) != conflicts &&
			   !s->nwarnings++) {
			/* two dumps disagree: the decode follows the first */
			char what[320];
			trawl_ete_image_conflicts(s->image, what, sizeof what);
			const char *base = strrchr(path, '/');
			snprintf(s->warning, sizeof s->warning, "%.64s [%.32s]: %.320s",
				 base ? base + 1 : path, e->section, what);
		}
	}
	return TRAWL_OK;
}

/* One device file of [device_list]: trace sources and cores are used,
 * any other class (funnels, sinks, STM) is skipped. */
static enum trawl_status load_device(struct trawl_ete_snapshot *s, const char *file,
				     struct trawl_error *err)
{
	char path[4096 + 256];
	struct trawl_ini *ini = NULL;
	join(path, sizeof path, s->dir, file);
	enum trawl_status st = trawl_ini_load(&ini, path, err);
	if (st != TRAWL_OK)
		return st;
	const char *name = trawl_ini_get(ini, "device", "name");
	const char *cls = trawl_ini_get(ini, "device", "class");
	const char *type = trawl_ini_get(ini, "device", "type");
	if (!name || !cls) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "[device] needs name and class");
		trawl_error_at(err, path, 0, 0, 0);
	} else if (!strcasecmp(cls, "trace_source") && type &&
		   (!strncasecmp(type, "ETE", 3) || !strncasecmp(type, "ETM4", 4))) {
		st = load_source(s, ini, name, type, path, err);
	} else if (!strcasecmp(cls, "core")) {
		st = load_dumps(s, ini, path, err);
	}
	trawl_ini_destroy(ini);
	return st;
}

/* [source_buffers] SOURCE = BUFFER: the buffer holds that source's trace
 * (an unformatted buffer has no trace IDs to say so itself). */
static void map_source_buffer(struct trawl_ete_snapshot *s, const char *src, const char *buf)
{
	for (size_t k = 0; k < s->nsources; k++) {
		if (strcasecmp(s->sources[k].name, src) != 0)
			continue;
		for (size_t b = 0; b < s->nbuffers; b++)
			if (!strcasecmp(s->buffers[b].name, buf))
				s->buffers[b].source = (int)k;
	}
}

/* trace.ini: the buffers= list of [trace_buffers], each [bufferN] read
 * whole (name, file, format; source_data when no format is given), then
 * [core_trace_sources] to name the core each source traces. */
/* A TRBE buffer's state as trawl's snapshot writer records it in the
 * buffer's section (trbe_base, trbe_limit, trbe_ptr, trbe_wrapped,
 * TRBSR_EL1): a wrapped buffer's file is the whole memory [base, limit)
 * with the oldest byte at trbe_ptr. Absent keys: an ordinary buffer. */
static enum trawl_status load_trbe(const struct trawl_ini *ini, const char *sect,
				   struct trawl_ete_buffer *b, const char *path,
				   struct trawl_error *err)
{
	static const char *const keys[] = { "trbe_base", "trbe_limit", "trbe_ptr", "trbe_wrapped",
					    "TRBSR_EL1" };
	uint64_t v[5] = { 0 };
	int any = 0;
	for (int i = 0; i < 5; i++) {
		const char *s = trawl_ini_get(ini, sect, keys[i]);
		if (!s)
			continue;
		if (!parse_u64(s, &v[i])) {
			trawl_error_set(err, TRAWL_ERR_FORMAT, "[%s] %s: not a number: '%s'", sect,
					keys[i], s);
			trawl_error_at(err, path, 0, 0, 0);
			return TRAWL_ERR_FORMAT;
		}
		any = 1;
	}
	if (!any)
		return TRAWL_OK;
	b->trbe = 1;
	b->trbe_base = v[0];
	b->trbe_limit = v[1];
	b->trbe_ptr = v[2];
	b->trbe_wrapped = v[3] != 0;
	b->trbe_sr = v[4];
	return TRAWL_OK;
}

static enum trawl_status load_trace(struct trawl_ete_snapshot *s, const char *file,
				    struct trawl_error *err)
{
	char path[4096 + 256];
	struct trawl_ini *ini = NULL;
	join(path, sizeof path, s->dir, file);
	enum trawl_status st = trawl_ini_load(&ini, path, err);
	if (st != TRAWL_OK)
		return st;
	const char *list = trawl_ini_get(ini, "trace_buffers", "buffers");
	if (!list) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "[trace_buffers] has no buffers= list");
		trawl_error_at(err, path, 0, 0, 0);
		goto out;
	}
	char names[1024];
	snprintf(names, sizeof names, "%s", list);
	for (char *tok = strtok(names, ", \t"); tok; tok = strtok(NULL, ", \t")) {
		const char *bname = trawl_ini_get(ini, tok, "name");
		const char *bfile = trawl_ini_get(ini, tok, "file");
		const char *bfmt = trawl_ini_get(ini, tok, "format");
		if (!bfile) {
			st = trawl_error_set(err, TRAWL_ERR_FORMAT, "[%s] has no file=", tok);
			trawl_error_at(err, path, 0, 0, 0);
			goto out;
		}
		void *nb = realloc(s->buffers, (s->nbuffers + 1) * sizeof *s->buffers);
		if (!nb) {
			st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
			goto out;
		}
		s->buffers = nb;
		struct trawl_ete_buffer *b = &s->buffers[s->nbuffers];
		memset(b, 0, sizeof *b);
		snprintf(b->name, sizeof b->name, "%s", bname ? bname : tok);
		snprintf(b->format, sizeof b->format, "%s", bfmt ? bfmt : "source_data");
		b->source = -1;
		join(b->path, sizeof b->path, s->dir, bfile);
		st = trawl_file_read(b->path, &b->data, &b->len, err);
		if (st != TRAWL_OK)
			goto out;
		s->nbuffers++;
		st = load_trbe(ini, tok, b, path, err);
		if (st != TRAWL_OK)
			goto out;
	}
	/* which core each source traces (for naming only), and which source
	 * wrote each buffer ([source_buffers] source = buffer name) */
	for (size_t i = 0; i < trawl_ini_count(ini); i++) {
		const struct trawl_ini_entry *e = trawl_ini_at(ini, i);
		if (!strcasecmp(e->section, "source_buffers"))
			map_source_buffer(s, e->key, e->value);
		if (strcasecmp(e->section, "core_trace_sources") != 0)
			continue;
		for (size_t k = 0; k < s->nsources; k++)
			if (!strcasecmp(s->sources[k].name, e->value))
				snprintf(s->sources[k].core, sizeof s->sources[k].core, "%s", e->key);
	}
out:
	trawl_ini_destroy(ini);
	return st;
}

/* snapshot.ini: the image first (core devices fill it), then every device
 * of [device_list], then the trace metadata; at least one ETE/ETMv4 source
 * must come out of it. On any error the half-built snapshot is closed. */
enum trawl_status trawl_ete_snapshot_open(struct trawl_ete_snapshot **out, const char *dir,
					  struct trawl_error *err)
{
	char path[4096 + 64];
	struct trawl_ini *ini = NULL;
	struct trawl_ete_snapshot *s = calloc(1, sizeof *s);
	enum trawl_status st;
	*out = NULL;
	if (!s)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	snprintf(s->dir, sizeof s->dir, "%s", dir);
	st = trawl_ete_image_create(&s->image, err);
	if (st != TRAWL_OK)
		goto out;
	snprintf(path, sizeof path, "%s/snapshot.ini", dir);
	st = trawl_ini_load(&ini, path, err);
	if (st != TRAWL_OK)
		goto out;
	for (size_t i = 0; i < trawl_ini_count(ini); i++) {
		const struct trawl_ini_entry *e = trawl_ini_at(ini, i);
		if (strcasecmp(e->section, "device_list") != 0)
			continue;
		st = load_device(s, e->value, err);
		if (st != TRAWL_OK)
			goto out;
	}
	const char *meta = trawl_ini_get(ini, "trace", "metadata");
	if (!meta) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "[trace] has no metadata= entry");
		trawl_error_at(err, path, 0, 0, 0);
		goto out;
	}
	st = load_trace(s, meta, err);
	if (st != TRAWL_OK)
		goto out;
	if (s->nsources == 0) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "no ETE/ETMv4 trace source in the snapshot");
		trawl_error_at(err, path, 0, 0, 0);
		goto out;
	}
out:
	trawl_ini_destroy(ini);
	if (st != TRAWL_OK) {
		trawl_ete_snapshot_close(s);
		return st;
	}
	*out = s;
	return TRAWL_OK;
}

const struct trawl_ete_source *trawl_ete_snapshot_source(const struct trawl_ete_snapshot *s, int id)
{
	if (id < 0)
		return s->nsources ? &s->sources[0] : NULL;
	for (size_t i = 0; i < s->nsources; i++)
		if (s->sources[i].cfg.trace_id == id)
			return &s->sources[i];
	return NULL;
}

void trawl_ete_snapshot_buffer_names(const struct trawl_ete_snapshot *s, char *buf, size_t size)
{
	if (!size)
		return;
	int n = snprintf(buf, size, "%s", s->nbuffers == 1 ? "the buffer is " :
				   s->nbuffers ? "the buffers are " : "the snapshot has no buffer");
	size_t used = n > 0 && (size_t)n < size ? (size_t)n : 0;
	for (size_t i = 0; i < s->nbuffers && used < size; i++) {
		n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", s->buffers[i].name);
		if (n < 0 || (size_t)n >= size - used) {
			if (size >= 4)
				memcpy(buf + size - 4, "...", 4);
			return;
		}
		used += (size_t)n;
	}
}

void trawl_ete_snapshot_close(struct trawl_ete_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nbuffers; i++)
		free(s->buffers[i].data);
	free(s->buffers);
	free(s->sources);
	trawl_ete_image_destroy(s->image);
	free(s);
}
