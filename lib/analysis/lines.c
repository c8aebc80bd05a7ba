/* DWARF line tables through elfutils' libdw, which is loaded at the first
 * use (core/lazy.h): only `trawl coverage` pays for it, `trawl regs` and
 * the rest never load it. */
#include "trawl/coverage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/grow.h"
#include "core/lazy.h"

#if defined(TRAWL_HAVE_LIBDW)
#include <dwarf.h>
#include <elfutils/libdw.h>

#ifndef TRAWL_LIBDW_PATH
#define TRAWL_LIBDW_PATH NULL
#endif

/* The order of names[] and of the fields of dw must agree. */
static const char *const names[] = {
	"dwarf_begin", "dwarf_end", "dwarf_nextcu", "dwarf_offdie", "dwarf_getsrclines",
	"dwarf_onesrcline", "dwarf_lineaddr", "dwarf_lineno", "dwarf_linesrc",
	"dwarf_lineendsequence", "dwarf_errmsg", "dwarf_child", "dwarf_siblingof", "dwarf_tag",
	"dwarf_lowpc", "dwarf_decl_file", "dwarf_decl_line", NULL,
};

static struct {
	__typeof__(dwarf_begin) *begin;
	__typeof__(dwarf_end) *end;
	__typeof__(dwarf_nextcu) *nextcu;
	__typeof__(dwarf_offdie) *offdie;
	__typeof__(dwarf_getsrclines) *getsrclines;
	__typeof__(dwarf_onesrcline) *onesrcline;
	__typeof__(dwarf_lineaddr) *lineaddr;
	__typeof__(dwarf_lineno) *lineno;
	__typeof__(dwarf_linesrc) *linesrc;
	__typeof__(dwarf_lineendsequence) *lineendsequence;
	__typeof__(dwarf_errmsg) *errmsg;
	__typeof__(dwarf_child) *child;
	__typeof__(dwarf_siblingof) *siblingof;
	__typeof__(dwarf_tag) *tag;
	__typeof__(dwarf_lowpc) *lowpc;
	__typeof__(dwarf_decl_file) *decl_file;
	__typeof__(dwarf_decl_line) *decl_line;
} dw;

static struct lazy_lib libdw = {
	.label = "libdw (elfutils, for DWARF line tables)",
	.path = TRAWL_LIBDW_PATH,
	.soname = "libdw.so.1",
	.names = names,
	.slots = (void **)&dw,
};
#endif

struct trawl_lines {
	struct trawl_line_span *spans;
	size_t nspans, cap;
	struct trawl_line_decl *decls;
	size_t ndecls, cap_decls;
	char **files;
	size_t nfiles, cap_files;
	int sorted;
};

enum trawl_status trawl_lines_create(struct trawl_lines **out, struct trawl_error *err)
{
	*out = calloc(1, sizeof **out);
	return *out ? TRAWL_OK : trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
}

void trawl_lines_destroy(struct trawl_lines *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nfiles; i++)
		free(l->files[i]);
	free(l->files);
	free(l->spans);
	free(l->decls);
	free(l);
}

const char *trawl_lines_file(const struct trawl_lines *l, uint32_t file)
{
	return file < l->nfiles ? l->files[file] : "";
}

size_t trawl_lines_file_count(const struct trawl_lines *l)
{
	return l->nfiles;
}

/* File names repeat in every row: the last one looked up is checked first,
 * then the list (a CU names few files). */
static int file_index(struct trawl_lines *l, const char *name, uint32_t *out)
{
	for (size_t i = l->nfiles; i-- > 0;)
		if (strcmp(l->files[i], name) == 0) {
			*out = (uint32_t)i;
			return 1;
		}
	char *copy = strdup(name);
	if (!copy || !trawl_grow((void **)&l->files, &l->cap_files, l->nfiles + 1, sizeof *l->files)) {
		free(copy);
		return 0;
	}
	l->files[l->nfiles] = copy;
	*out = (uint32_t)l->nfiles++;
	return 1;
}

#if defined(TRAWL_HAVE_LIBDW)
/* One CU's rows: row i covers [addr_i, addr_i+1) unless it ends a
 * sequence; rows of line 0 (no source line) are left out. */
static enum trawl_status add_cu_lines(struct trawl_lines *l, Dwarf_Lines *lines, size_t n,
				      uint64_t offset, struct trawl_error *err)
{
	for (size_t i = 0; i + 1 < n; i++) {
		Dwarf_Line *row = dw.onesrcline(lines, i), *next = dw.onesrcline(lines, i + 1);
		Dwarf_Addr lo, hi;
		int lineno;
		bool end;
		const char *src;
		if (!row || !next || dw.lineaddr(row, &lo) || dw.lineaddr(next, &hi) ||
		    dw.lineno(row, &lineno) || dw.lineendsequence(row, &end))
			continue;
		if (end || lineno <= 0 || hi <= lo || !(src = dw.linesrc(row, NULL, NULL)))
			continue;
		uint32_t file;
		if (!file_index(l, src, &file) ||
		    !trawl_grow((void **)&l->spans, &l->cap, l->nspans + 1, sizeof *l->spans))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading line tables");
		l->spans[l->nspans++] = (struct trawl_line_span){ lo + offset, hi + offset, file,
								  (uint32_t)lineno };
	}
	return TRAWL_OK;
}

/* The functions a CU defines (top-level subprograms with code): where
 * their declaration is, which gcov counts as the function's first line. */
static enum trawl_status add_cu_decls(struct trawl_lines *l, Dwarf_Die *cu, uint64_t offset,
				      struct trawl_error *err)
{
	Dwarf_Die die;
	if (dw.child(cu, &die) != 0)
		return TRAWL_OK;
	do {
		Dwarf_Addr lo;
		int line;
		const char *file;
		uint32_t fi;
		if (dw.tag(&die) != DW_TAG_subprogram || dw.lowpc(&die, &lo) != 0 ||
		    dw.decl_line(&die, &line) != 0 || line <= 0 || !(file = dw.decl_file(&die)))
			continue;
		if (!file_index(l, file, &fi) ||
		    !trawl_grow((void **)&l->decls, &l->cap_decls, l->ndecls + 1, sizeof *l->decls))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading DWARF");
		l->decls[l->ndecls++] = (struct trawl_line_decl){ lo + offset, fi, (uint32_t)line };
	} while (dw.siblingof(&die, &die) == 0);
	return TRAWL_OK;
}

static enum trawl_status read_cus(struct trawl_lines *l, Dwarf *dbg, const char *path,
				  uint64_t offset, struct trawl_error *err)
{
	Dwarf_Off off = 0, next;
	size_t hsize, before = l->nspans;
	while (dw.nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;
		if (dw.offdie(dbg, off + hsize, &cu) && dw.getsrclines(&cu, &lines, &n) == 0) {
			enum trawl_status st = add_cu_lines(l, lines, n, offset, err);
			if (!st)
				st = add_cu_decls(l, &cu, offset, err);
			if (st)
				return st;
		}
		off = next;
	}
	if (l->nspans == before)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND,
				       "%s has no DWARF line table (build it with -g)", path);
	return TRAWL_OK;
}
#endif

enum trawl_status trawl_lines_add_elf(struct trawl_lines *l, const char *path, uint64_t offset,
				      struct trawl_error *err)
{
#if defined(TRAWL_HAVE_LIBDW)
	enum trawl_status st = lazy_lib_load(&libdw, err);
	if (st)
		return st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	Dwarf *dbg = dw.begin(fd, DWARF_C_READ);
	if (!dbg) {
		close(fd);
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "%s: no DWARF debug information (%s)",
				       path, dw.errmsg(-1));
	}
	st = read_cus(l, dbg, path, offset, err);
	dw.end(dbg);
	close(fd);
	l->sorted = 0;
	return st;
#else
	(void)l;
	(void)offset;
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
			       "%s: trawl was built without libdw (Debian libdw-dev): no line tables",
			       path);
#endif
}

static int cmp_decl(const void *x, const void *y)
{
	const struct trawl_line_decl *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

const struct trawl_line_decl *trawl_lines_decls(struct trawl_lines *l, size_t *count)
{
	if (l->ndecls > 1) /* qsort(NULL, 0) is undefined */
		qsort(l->decls, l->ndecls, sizeof *l->decls, cmp_decl);
	*count = l->ndecls;
	return l->decls;
}

static int cmp_span(const void *x, const void *y)
{
	const struct trawl_line_span *a = x, *b = y;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return 0;
}

const struct trawl_line_span *trawl_lines_spans(struct trawl_lines *l, size_t *count)
{
	if (!l->sorted) {
		if (l->nspans > 1)
			qsort(l->spans, l->nspans, sizeof *l->spans, cmp_span);
		/* a span reaching past the next one's start is cut there */
		for (size_t i = 0; i + 1 < l->nspans; i++)
			if (l->spans[i].hi > l->spans[i + 1].lo)
				l->spans[i].hi = l->spans[i + 1].lo;
		size_t k = 0;
		for (size_t i = 0; i < l->nspans; i++)
			if (l->spans[i].hi > l->spans[i].lo)
				l->spans[k++] = l->spans[i];
		l->nspans = k;
		l->sorted = 1;
	}
	*count = l->nspans;
	return l->spans;
}
