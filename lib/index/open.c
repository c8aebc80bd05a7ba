/* Opening an index: header and section checks, trace identity, where the
 * index lives, and building it when it is missing or stale. The layout is
 * in format.h (and docs/index-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/index-int.h"
#include "index/spool.h"
#include "trawl/reader.h"

#define ID_SPAN (64u << 10)

enum trawl_status trawl_trace_id_get(const char *trace_path, struct trawl_trace_id *id,
				     struct trawl_error *err)
{
	memset(id, 0, sizeof *id);
	int fd = open(trace_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", trace_path);
	enum trawl_status st = TRAWL_OK;
	struct stat sb;
	uint8_t *buf = NULL;
	if (fstat(fd, &sb) != 0) {
		st = trawl_error_errno(err, errno, "cannot stat '%s'", trace_path);
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		st = trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				     "'%s' is not a regular file: only files can be indexed",
				     trace_path);
		goto out;
	}
	id->size = (uint64_t)sb.st_size;
	id->mtime_ns = (uint64_t)sb.st_mtim.tv_sec * 1000000000ull + (uint64_t)sb.st_mtim.tv_nsec;
	buf = malloc(2 * ID_SPAN);
	if (!buf) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* head and tail: catches a trace rewritten in place with the same size */
	size_t head = id->size < ID_SPAN ? (size_t)id->size : ID_SPAN;
	uint64_t tail_off = id->size > ID_SPAN ? id->size - ID_SPAN : 0;
	size_t tail = (size_t)(id->size - tail_off);
	ssize_t a = pread(fd, buf, head, 0);
	ssize_t b = pread(fd, buf + ID_SPAN, tail, (off_t)tail_off);
	if (a != (ssize_t)head || b != (ssize_t)tail) {
		st = trawl_error_errno(err, errno ? errno : EIO, "cannot read '%s'", trace_path);
		goto out;
	}
	id->hash = idx_hash(idx_hash(id->size, buf, head), buf + ID_SPAN, tail);
out:
	free(buf);
	close(fd);
	return st;
}

static int dir_writable(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return 0;
	char *slash = strrchr(d, '/');
	int ok;
	if (!slash)
		ok = access(".", W_OK) == 0;
	else {
		if (slash == d)
			slash[1] = 0;
		else
			*slash = 0;
		ok = access(d, W_OK) == 0;
	}
	free(d);
	return ok;
}

static int mkdirs(char *p)
{
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		int r = mkdir(p, 0755);
		*s = '/';
		if (r != 0 && errno != EEXIST)
			return -1;
	}
	return mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

enum trawl_status trawl_index_default_path(const char *trace_path, char *buf, size_t size,
					   struct trawl_error *err)
{
	if (strcmp(trace_path, "-") == 0)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "standard input cannot be indexed: save the trace to a file");
	if (dir_writable(trace_path)) {
		if ((size_t)snprintf(buf, size, "%s.trawlidx", trace_path) >= size)
			return trawl_error_set(err, TRAWL_ERR_LIMIT, "path too long");
		return TRAWL_OK;
	}
	char abs[PATH_MAX];
	if (!realpath(trace_path, abs))
		return trawl_error_errno(err, errno, "cannot resolve '%s'", trace_path);
	char dir[PATH_MAX];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && *xdg)
		n = snprintf(dir, sizeof dir, "%s/trawl", xdg);
	else if (home && *home)
		n = snprintf(dir, sizeof dir, "%s/.cache/trawl", home);
	else
		return trawl_error_set(err, TRAWL_ERR_IO,
				       "the folder of '%s' is read-only and there is no cache "
				       "folder (set XDG_CACHE_HOME or use --index)", trace_path);
	if (n < 0 || (size_t)n >= sizeof dir)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "path too long");
	if (mkdirs(dir) != 0)
		return trawl_error_errno(err, errno, "cannot create '%s'", dir);
	const char *base = strrchr(abs, '/');
	base = base ? base + 1 : abs;
	if ((size_t)snprintf(buf, size, "%s/%016llx-%s.trawlidx", dir,
			     (unsigned long long)idx_hash(0, abs, strlen(abs)), base) >= size)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "path too long");
	return TRAWL_OK;
}

static const uint32_t sec_rec[SEC_COUNT_ + 1] = {
	[SEC_EVENTS] = EV_REC,   [SEC_DELTAS] = 0,
	[SEC_MEMW] = MEMW_REC,   [SEC_SNAP] = SNAP_REC,
	[SEC_CLOB] = CLOB_REC,   [SEC_BACKDATE] = BD_REC, [SEC_REGW] = REGW_REC,
	[SEC_PCS] = PCS_REC,     [SEC_SYSREGS] = 0,
	[SEC_FENCE_MEMW] = FENCE_REC, [SEC_FENCE_SNAP] = FENCE_REC, [SEC_FENCE_CLOB] = FENCE_REC,
	[SEC_FENCE_BACKDATE] = FENCE_REC, [SEC_FENCE_REGW] = FENCE_REC, [SEC_FENCE_PCS] = FENCE_REC,
};

/* Sorted sections and their fences. */
static const uint32_t fenced[6][2] = {
	{ SEC_MEMW, SEC_FENCE_MEMW }, { SEC_SNAP, SEC_FENCE_SNAP },
	{ SEC_CLOB, SEC_FENCE_CLOB }, { SEC_BACKDATE, SEC_FENCE_BACKDATE },
	{ SEC_REGW, SEC_FENCE_REGW }, { SEC_PCS, SEC_FENCE_PCS },
};

/* Check the header and the section table of a mapped file. */
static enum trawl_status check_header(struct trawl_index *ix, const struct trawl_trace_id *id,
				      struct trawl_error *err)
{
	const uint8_t *h = ix->map;
	const char *p = ix->path;
	if (ix->size < IDX_HEADER_SIZE || memcmp(h, IDX_MAGIC, 8) != 0)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is not a trawl index", p);
	if (ld32(h + 8) != IDX_VERSION)
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				       "'%s': index format version %u (this trawl reads %u)", p,
				       ld32(h + 8), IDX_VERSION);
	if (ld64(h + IDX_HDR_CHECKSUM_OFF) != idx_hash(0, h, IDX_HDR_CHECKSUM_OFF))
		return TRAWL_CORRUPT(err, "'%s': index header checksum mismatch", p);
	if (!(ld32(h + 16) & IDX_FLAG_COMPLETE))
		return TRAWL_CORRUPT(err, "'%s': index build did not complete", p);
	if (ld32(h + 12) != TRAWL_INDEX_KIND_LINEAR)
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "'%s': unknown index kind %u",
				       p, ld32(h + 12));
	if (ld32(h + 20) != IDX_HEADER_SIZE || ld64(h + 24) != ix->size)
		return TRAWL_CORRUPT(err, "'%s': index is truncated or has a bad size", p);
	ix->id.size = ld64(h + 32);
	ix->id.mtime_ns = ld64(h + 40);
	ix->id.hash = ld64(h + 48);
	if (id && (id->size != ix->id.size || id->mtime_ns != ix->id.mtime_ns ||
		   id->hash != ix->id.hash))
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND,
				       "'%s' is the index of another version of the trace", p);
	if (id && !(ld32(h + 16) & IDX_FLAG_EXC_FLAGS))
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND,
				       "'%s' was built by an older trawl (no reset flags)", p);
	ix->nev = ld64(h + 56);
	ix->last_line = ld64(h + 64);
	ix->K = ld32(h + 72);
	ix->ncpu = ld32(h + 76);
	ix->build_ns = ld64(h + 80);
	ix->created = ld64(h + 88);
	ix->time_unit = ld32(h + 96);
	uint32_t nsec = ld32(h + 100);
	if (ix->K == 0 || ix->ncpu > 4096 || nsec > IDX_MAX_SECTIONS)
		return TRAWL_CORRUPT(err, "'%s': bad index header field", p);
	for (uint32_t i = 0; i < nsec; i++) {
		const uint8_t *e = h + 128 + 32 * i;
		uint32_t sid = ld32(e), rec = ld32(e + 4);
		uint64_t off = ld64(e + 8), len = ld64(e + 16);
		if (sid == 0 || sid > SEC_COUNT_ || sid == SEC_UNUSED3_ || sid == SEC_UNUSED4_)
			continue; /* not a section this version reads */
		if (ix->sec[sid].p || rec != sec_rec[sid] || off < IDX_HEADER_SIZE || off % 8 ||
		    off > ix->size || len > ix->size - off || (rec && len % rec))
			return TRAWL_CORRUPT(err, "'%s': bad section table entry %u", p, i);
		ix->sec[sid].p = ix->map + off;
		ix->sec[sid].len = len;
		ix->sec[sid].rec = rec;
		ix->sec[sid].n = rec ? len / rec : len;
		ix->sec[sid].sum = ld64(e + 24);
	}
	for (uint32_t sid = 1; sid <= SEC_COUNT_; sid++)
		if (!ix->sec[sid].p && sid != SEC_UNUSED3_ && sid != SEC_UNUSED4_)
			return TRAWL_CORRUPT(err, "'%s': index section %u is missing", p, sid);
	for (int i = 0; i < 6; i++) {
		struct idx_sec *t = &ix->sec[fenced[i][0]];
		const struct idx_sec *f = &ix->sec[fenced[i][1]];
		if (f->n != t->n / IDX_FENCE + (t->n % IDX_FENCE != 0))
			return TRAWL_CORRUPT(err, "'%s': index fence %u has a bad size", p,
					     fenced[i][1]);
		t->fence = f->p;
		t->nfence = f->n;
	}
	ix->nckpt = ix->nev / ix->K + (ix->nev % ix->K != 0);
	if (ix->sec[SEC_EVENTS].n != ix->nev)
		return TRAWL_CORRUPT(err, "'%s': index section sizes disagree with the header", p);
	/* system register names: NUL-terminated strings */
	const struct idx_sec *s = &ix->sec[SEC_SYSREGS];
	if (s->len && s->p[s->len - 1] != 0)
		return TRAWL_CORRUPT(err, "'%s': bad register name table", p);
	uint32_t n = 0;
	for (uint64_t i = 0; i < s->len; i++)
		n += s->p[i] == 0;
	if (n > 65536)
		return TRAWL_CORRUPT(err, "'%s': bad register name table", p);
	ix->sysnames = calloc(n ? n : 1, sizeof *ix->sysnames);
	if (!ix->sysnames)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	const char *q = (const char *)s->p;
	for (uint32_t i = 0; i < n; i++) {
		ix->sysnames[i] = (char *)q;
		q += strlen(q) + 1;
	}
	ix->nsys = n;
	return TRAWL_OK;
}

enum trawl_status trawl_index_open(struct trawl_index **out, const char *index_path,
				   const struct trawl_trace_id *id, struct trawl_error *err)
{
	enum trawl_status st;
	struct trawl_index *ix = calloc(1, sizeof *ix);
	if (!ix || !(ix->path = strdup(index_path))) {
		free(ix);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	ix->fd = -1;
	int fd = open(index_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		st = errno == ENOENT ? trawl_error_set(err, TRAWL_ERR_NOT_FOUND,
						       "no index '%s'", index_path)
				     : trawl_error_errno(err, errno, "cannot open '%s'", index_path);
		goto fail;
	}
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is not a trawl index", index_path);
		goto fail;
	}
	ix->size = (size_t)sb.st_size;
	if (ix->size < IDX_HEADER_SIZE) {
		/* only a file that starts like an index may be called a damaged
		 * one (and so be rebuilt over) */
		char head[8];
		size_t k = ix->size < 8 ? ix->size : 8;
		if (k && (pread(fd, head, k, 0) != (ssize_t)k || memcmp(head, IDX_MAGIC, k))) {
			close(fd);
			st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is not a trawl index",
					     index_path);
			goto fail;
		}
	} else {
		void *m = mmap(NULL, ix->size, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			st = trawl_error_errno(err, errno, "cannot map '%s'", index_path);
			close(fd);
			goto fail;
		}
		ix->map = m;
	}
	ix->fd = fd;
	if (!ix->map) {
		st = TRAWL_CORRUPT(err, "'%s': index is truncated", index_path);
		goto fail;
	}
	if ((st = check_header(ix, id, err)))
		goto fail;
	if (ix->nev) {
		const uint8_t *e0 = ix->sec[SEC_EVENTS].p;
		uint8_t last[EV_REC];
		if (pread(ix->fd, last, EV_REC,
			  (off_t)(e0 - ix->map) + (off_t)(ix->nev - 1) * EV_REC) != EV_REC) {
			st = trawl_error_errno(err, errno ? errno : EIO, "cannot read '%s'", index_path);
			goto fail;
		}
		for (int i = 0; i < 3; i++) {
			ix->first_ev[i] = ld64(e0 + 8 * i);
			ix->last_ev[i] = ld64(last + 8 * i);
		}
	}
	*out = ix;
	return TRAWL_OK;
fail:
	trawl_index_close(ix);
	return st;
}

void trawl_index_close(struct trawl_index *ix)
{
	if (!ix)
		return;
	if (ix->map)
		munmap(ix->map, ix->size);
	if (ix->fd >= 0)
		close(ix->fd);
	free(ix->sysnames);
	free(ix->path);
	free(ix);
}

enum trawl_status trawl_index_verify(struct trawl_index *ix, struct trawl_error *err)
{
	for (uint32_t sid = 1; sid <= SEC_COUNT_; sid++) {
		const struct idx_sec *s = &ix->sec[sid];
		if (!s->p)
			continue;
		if (idx_hash(0, s->p, (size_t)s->len) != s->sum)
			return TRAWL_CORRUPT(err, "'%s': checksum mismatch in index section %u",
					     ix->path, sid);
	}
	return TRAWL_OK;
}

void trawl_index_get_info(const struct trawl_index *ix, struct trawl_index_info *info)
{
	memset(info, 0, sizeof *info);
	info->version = IDX_VERSION;
	info->kind = TRAWL_INDEX_KIND_LINEAR;
	info->file_size = ix->size;
	info->events = ix->nev;
	info->lines = ix->last_line;
	info->trace_size = ix->id.size;
	info->build_ns = ix->build_ns;
	info->created = ix->created;
	info->checkpoint_interval = ix->K;
	info->cpus = ix->ncpu;
	info->time_unit = ix->time_unit;
	info->mem_writes = ix->sec[SEC_MEMW].n;
	info->reg_writes = ix->sec[SEC_REGW].n;
	info->snapshots = ix->sec[SEC_SNAP].n;
	info->backdated = ix->sec[SEC_BACKDATE].n;
	info->clobbers = ix->sec[SEC_CLOB].n;
}

enum trawl_status trawl_index_build(const char *trace_path, const char *index_path,
				    const struct trawl_index_build_options *opt,
				    struct trawl_error *err)
{
	struct trawl_trace_id id;
	struct trawl_reader *r = NULL;
	struct trawl_index_builder *b = NULL;
	enum trawl_status st = trawl_trace_id_get(trace_path, &id, err);
	if (st)
		return st;
	/* the input layer maps plain files in windows and releases pages
	 * behind the reader, so the build's memory does not follow the trace */
	if ((st = trawl_reader_open(&r, trace_path, opt ? &opt->reader : NULL, err)))
		goto out;
	if ((st = trawl_index_builder_create(&b, index_path, opt, err)))
		goto out;
	struct trawl_event_batch batch;
	struct trawl_input *in = trawl_reader_input(r);
	while ((st = trawl_reader_next(r, &batch, err)) == TRAWL_OK) {
		if ((st = trawl_index_builder_add(b, &batch, err)))
			goto out;
		if (opt && opt->progress)
			opt->progress(opt->progress_ctx, trawl_input_raw_pos(in),
				      trawl_input_raw_size(in));
	}
	if (st != TRAWL_END)
		goto out;
	st = trawl_index_builder_finish(b, &id, err);
out:
	if (st && err && !err->file[0] && err->line)
		trawl_error_at(err, trace_path, err->line, err->column, err->offset);
	trawl_index_builder_destroy(b);
	trawl_reader_close(r);
	return st;
}

enum trawl_status trawl_index_open_trace(struct trawl_index **out, const char *trace_path,
					 const char *index_path,
					 const struct trawl_index_build_options *opt, int *built,
					 struct trawl_error *err)
{
	char def[PATH_MAX];
	struct trawl_trace_id id;
	enum trawl_status st;
	if (built)
		*built = 0;
	if (!index_path) {
		if ((st = trawl_index_default_path(trace_path, def, sizeof def, err)))
			return st;
		index_path = def;
	}
	if ((st = trawl_trace_id_get(trace_path, &id, err)))
		return st;
	st = trawl_index_open(out, index_path, &id, err);
	/* missing, stale, incomplete, damaged or of another version: build it
	 * again (a file that is not an index at all is left alone) */
	if (st != TRAWL_ERR_NOT_FOUND && st != TRAWL_ERR_CORRUPT && st != TRAWL_ERR_UNSUPPORTED)
		return st;
	trawl_error_clear(err);
	if ((st = trawl_index_build(trace_path, index_path, opt, err)))
		return st;
	if (built)
		*built = 1;
	return trawl_index_open(out, index_path, &id, err);
}
