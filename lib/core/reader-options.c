/* Which reader options apply to which kind of trace (docs/ete.md, "As a
 * trace", 1. Options): one table, so every command and serve follow one
 * rule. An option given for a trace it does not apply to would change
 * nothing without a word (a --symfs beside a Tarmac, --lenient on a
 * perf.data): it is a usage error that names the option and the kind. */
#include "trawl/reader.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "trawl/ete.h"
#include "trawl/perf.h"

#define K(k) (1u << (k))
#define ETE_ANY (K(TRAWL_KIND_ETE_SNAPSHOT) | K(TRAWL_KIND_ETE_BUFFER) | K(TRAWL_KIND_PERF))

struct option_rule {
	const char *name;
	unsigned kinds;         /* K(kind) of every kind it applies to */
	const char *for_what;   /* those kinds, for the message */
};

/* In the order of TRACE_OPTIONS (tools/trawl/trace-open.h). */
static const struct option_rule rules[] = {
	{ "implicit-thumb", K(TRAWL_KIND_TARMAC), "a Tarmac trace" },
	{ "big-endian", K(TRAWL_KIND_TARMAC), "a Tarmac trace" },
	{ "lenient", K(TRAWL_KIND_TARMAC), "a Tarmac trace" },
	{ "defs", K(TRAWL_KIND_BFDUMP), "a Barrelfish dump" },
	{ "ete-config", K(TRAWL_KIND_ETE_BUFFER), "a raw buffer" },
	{ "ete-image", ETE_ANY, "ETE trace (a snapshot, a raw buffer or a perf.data)" },
	{ "ete-buffer", K(TRAWL_KIND_ETE_SNAPSHOT), "a snapshot" },
	{ "symfs", K(TRAWL_KIND_PERF), "a perf.data" },
	{ "binary-dir", K(TRAWL_KIND_PERF), "a perf.data" },
	{ "vmlinux", K(TRAWL_KIND_PERF), "a perf.data" },
	{ "kallsyms", K(TRAWL_KIND_PERF), "a perf.data" },
};

#define NRULES (sizeof rules / sizeof rules[0])

/* Whether opt gives rules[i]. */
static int given(const struct trawl_reader_options *o, size_t i)
{
	switch (i) {
	case 0: return o->implicit_thumb;
	case 1: return o->big_endian;
	case 2: return o->lenient;
	case 3: return o->defs != NULL;
	case 4: return o->ete_config != NULL;
	case 5: return o->ete_nimages != 0;
	case 6: return o->ete_buffer != NULL;
	case 7: return o->perf_symfs != NULL;
	case 8: return o->perf_binary_dir != NULL;
	case 9: return o->perf_vmlinux != NULL;
	default: return o->perf_kallsyms != NULL;
	}
}

static void clear(struct trawl_reader_options *o, size_t i)
{
	switch (i) {
	case 0: o->implicit_thumb = 0; break;
	case 1: o->big_endian = 0; break;
	case 2: o->lenient = 0; break;
	case 3: o->defs = NULL; break;
	case 4: o->ete_config = NULL; break;
	case 5: o->ete_images = NULL, o->ete_nimages = 0; break;
	case 6: o->ete_buffer = NULL; break;
	case 7: o->perf_symfs = NULL; break;
	case 8: o->perf_binary_dir = NULL; break;
	case 9: o->perf_vmlinux = NULL; break;
	default: o->perf_kallsyms = NULL; break;
	}
}

const char *trawl_trace_kind_name(enum trawl_trace_kind k)
{
	switch (k) {
	case TRAWL_KIND_TARMAC: return "a Tarmac trace";
	case TRAWL_KIND_CTF: return "a CTF trace of software events";
	case TRAWL_KIND_BFDUMP: return "a Barrelfish dump";
	case TRAWL_KIND_ETE_SNAPSHOT: return "an ETE snapshot directory";
	case TRAWL_KIND_ETE_BUFFER: return "a raw ETE buffer";
	case TRAWL_KIND_PERF: return "a perf.data";
	default: return "a trace of unknown kind";
	}
}

enum trawl_trace_kind trawl_trace_kind_get(enum trawl_format format, int is_dir,
					   const void *first, size_t len)
{
	switch (format) {
	case TRAWL_FORMAT_TARMAC: return TRAWL_KIND_TARMAC;
	case TRAWL_FORMAT_CTF: return TRAWL_KIND_CTF;
	case TRAWL_FORMAT_BFDUMP: return TRAWL_KIND_BFDUMP;
	case TRAWL_FORMAT_ETE:
		if (is_dir)
			return TRAWL_KIND_ETE_SNAPSHOT;
		return first && trawl_perf_is_perf(first, len) ? TRAWL_KIND_PERF
							       : TRAWL_KIND_ETE_BUFFER;
	default: return TRAWL_KIND_UNKNOWN;
	}
}

enum trawl_trace_kind trawl_trace_kind_probe(const char *path,
					     const struct trawl_reader_options *opt)
{
	struct stat sb;
	if (!strcmp(path, "-") || stat(path, &sb) != 0)
		return TRAWL_KIND_UNKNOWN;
	if (S_ISDIR(sb.st_mode))
		return trawl_ete_snapshot_probe(path) ? TRAWL_KIND_ETE_SNAPSHOT : TRAWL_KIND_CTF;
	/* the probe reads the first chunk decompressed, and knows ETE only by
	 * a perf.data's magic (a raw buffer has none: only when asked for) */
	enum trawl_format probed = trawl_reader_probe(path);
	if (probed == TRAWL_FORMAT_ETE)
		return TRAWL_KIND_PERF;
	enum trawl_format fmt = opt && opt->format ? opt->format : probed;
	return trawl_trace_kind_get(fmt, 0, NULL, 0);
}

const char *trawl_reader_option_misfit(const struct trawl_reader_options *opt,
				       enum trawl_trace_kind kind, const char **for_what)
{
	for (size_t i = 0; opt && kind != TRAWL_KIND_UNKNOWN && i < NRULES; i++)
		if (given(opt, i) && !(rules[i].kinds & K(kind))) {
			if (for_what)
				*for_what = rules[i].for_what;
			return rules[i].name;
		}
	return NULL;
}

enum trawl_status trawl_reader_options_check(const struct trawl_reader_options *opt,
					     enum trawl_trace_kind kind, const char *path,
					     struct trawl_error *err)
{
	const char *for_what = NULL, *name = trawl_reader_option_misfit(opt, kind, &for_what);
	if (!name)
		return TRAWL_OK;
	return trawl_error_set(err, TRAWL_ERR_USAGE, "--%s is for %s; '%s' is %s", name,
			       for_what, path, trawl_trace_kind_name(kind));
}

void trawl_reader_options_fit(struct trawl_reader_options *opt, enum trawl_trace_kind kind)
{
	for (size_t i = 0; opt && kind != TRAWL_KIND_UNKNOWN && i < NRULES; i++)
		if (given(opt, i) && !(rules[i].kinds & K(kind)))
			clear(opt, i);
}

int trawl_reader_option_fits_any(const struct trawl_reader_options *opt, size_t i,
				 const enum trawl_trace_kind *kinds, size_t n, const char **name,
				 const char **for_what)
{
	if (i >= NRULES)
		return -1;
	*name = rules[i].name;
	*for_what = rules[i].for_what;
	if (!opt || !given(opt, i))
		return 1;
	for (size_t k = 0; k < n; k++)
		if (kinds[k] == TRAWL_KIND_UNKNOWN || rules[i].kinds & K(kinds[k]))
			return 1;
	return 0;
}
