/* /proc/kallsyms copies: one "HEX TYPE NAME[\t[module]]" line a symbol,
 * kept sorted by address with the names in one block. */
#include <stdlib.h>
#include <string.h>

#include "trawl/file.h"
#include "trawl/kallsyms.h"

#include "core/grow.h"

struct ksym {
	uint64_t addr;
	size_t name;              /* offset in names */
};

struct trawl_kallsyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
};

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One line [p, e): 1 added, 0 malformed, -1 out of memory. */
static int add_line(struct trawl_kallsyms *k, const char *p, const char *e)
{
	uint64_t a = 0;
	int digits = 0;
	if (memchr(p, 0, (size_t)(e - p)))
		return 0; /* not text: a name would end at the NUL */
	for (; p < e && hexval(*p) >= 0; p++, digits++)
		a = a << 4 | (uint64_t)hexval(*p);
	if (!digits || digits > 16 || e - p < 4 || p[0] != ' ' || p[1] == ' ' || p[2] != ' ')
		return 0;
	p += 3;
	const char *end = p;
	while (end < e && *end != '\t' && *end != ' ')
		end++;
	if (end == p)
		return 0;
	size_t len = (size_t)(end - p);
	if (!trawl_grow((void **)&k->syms, &k->cap, k->n + 1, sizeof *k->syms) ||
	    !trawl_grow((void **)&k->names, &k->ncap, k->nlen + len + 1, 1))
		return -1;
	k->syms[k->n].addr = a;
	k->syms[k->n++].name = k->nlen;
	memcpy(k->names + k->nlen, p, len);
	k->names[k->nlen + len] = 0;
	k->nlen += len + 1;
	return 1;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr ? 1
	       : x->name < y->name ? -1 : x->name > y->name;
}

/* Every line, or the first that is wrong (its number in *bad). */
static int add_lines(struct trawl_kallsyms *k, const char *text, size_t len, size_t *bad)
{
	const char *p = text, *end = text + len;
	for (size_t line = 1; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		int rc = e == p ? 1 : add_line(k, p, e);
		if (rc <= 0) {
			*bad = line;
			return rc;
		}
		p = nl ? nl + 1 : end;
	}
	return 1;
}

enum trawl_status trawl_kallsyms_parse(struct trawl_kallsyms **out, const char *text, size_t len,
				       const char *name, struct trawl_error *err)
{
	*out = NULL;
	struct trawl_kallsyms *k = calloc(1, sizeof *k);
	if (!k)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	size_t bad = 0;
	int rc = add_lines(k, text, len, &bad);
	enum trawl_status st = TRAWL_OK;
	uint64_t any = 0;
	for (size_t i = 0; i < k->n; i++)
		any |= k->syms[i].addr;
	if (rc < 0)
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	else if (!rc)
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: line %zu: not a kallsyms line "
				     "(ADDRESS TYPE NAME)", name, bad);
	else if (!k->n)
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: no symbols", name);
	else if (!any)
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: every address is 0 (copied without "
				     "the right to see them: read /proc/kallsyms as root, or set "
				     "kernel.kptr_restrict=0)", name);
	if (st != TRAWL_OK) {
		trawl_kallsyms_free(k);
		return st;
	}
	qsort(k->syms, k->n, sizeof *k->syms, cmp_ksym);
	*out = k;
	return TRAWL_OK;
}

enum trawl_status trawl_kallsyms_load(struct trawl_kallsyms **out, const char *path,
				      struct trawl_error *err)
{
	uint8_t *data;
	size_t len;
	*out = NULL;
	enum trawl_status st = trawl_file_read(path, &data, &len, err);
	if (st != TRAWL_OK)
		return st;
	st = trawl_kallsyms_parse(out, (const char *)data, len, path, err);
	free(data);
	return st;
}

void trawl_kallsyms_free(struct trawl_kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

const char *trawl_kallsyms_at(const struct trawl_kallsyms *k, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) { /* the first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*start = k->syms[lo - 1].addr;
	return k->names + k->syms[lo - 1].name;
}

int trawl_kallsyms_named(const struct trawl_kallsyms *k, const char *name, uint64_t *addr)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->names + k->syms[i].name, name)) {
			*addr = k->syms[i].addr;
			return 1;
		}
	return 0;
}

size_t trawl_kallsyms_count(const struct trawl_kallsyms *k)
{
	return k->n;
}
