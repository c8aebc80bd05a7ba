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
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "index/dir-id.h"
#include "index/evpack.h"
#include "index/index-int.h"
#include "index/spool.h"
#include "index/zblock.h"
#include "trawl/ete.h"
#include "trawl/reader.h"
#include "trawl/sw-trace.h"

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

enum trawl_status trawl_trace_id_get(const char *trace_path, struct trawl_trace_id *id,
				     struct trawl_error *err)
{
	memset(id, 0, sizeof *id);
	struct stat sb;
	if (stat(trace_path, &sb) != 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", trace_path);
	if (S_ISDIR(sb.st_mode)) {
		enum trawl_status st = idx_dir_stat(trace_path, &sb, id, err);
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		id->taken_ns = ts_ns(&now);
		return st;
	}
	if (!S_ISREG(sb.st_mode))
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				       "'%s' is not a regular file: only files can be indexed",
				       trace_path);
	id->size = (uint64_t)sb.st_size;
	id->mtime_ns = ts_ns(&sb.st_mtim);
	id->ctime_ns = ts_ns(&sb.st_ctim);
	id->ino = (uint64_t)sb.st_ino;
	id->dev = (uint64_t)sb.st_dev;
	id->source = TRAWL_INDEX_SOURCE_TRACE;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	id->taken_ns = ts_ns(&now);
	return TRAWL_OK;
}

/* Every source names the version of the reader that made its events, so
 * a parser fix rebuilds the indexes made before it; a perf.data goes
 * through the ETE decoder. */
uint32_t trawl_index_source_reader_version(uint32_t source)
{
	switch (source) {
	case TRAWL_INDEX_SOURCE_ETE:
	case TRAWL_INDEX_SOURCE_PERF:
		return TRAWL_ETE_READER_VERSION;
	case TRAWL_INDEX_SOURCE_SWEVENTS:
		return TRAWL_SW_READER_VERSION;
	default:
		return TRAWL_READER_VERSION;
	}
}

void trawl_trace_id_set_options(struct trawl_trace_id *id, const struct trawl_reader_options *o)
{
	id->reader = 0;
	id->format = 0;
	id->has_defs = 0;
	id->defs_hash = 0;
	id->reader_hash = 0;
	id->reader_version = 0;
	if (o && o->format == TRAWL_FORMAT_ETE)
		id->source = TRAWL_INDEX_SOURCE_ETE;
	id->reader_version = trawl_index_source_reader_version(id->source);
	if (!o)
		return;
	if (o->defs)
		idx_defs_hash(o->defs, id);
	if (o->ete_config || o->ete_nimages || o->ete_buffer)
		id->reader_hash = idx_ete_options_hash(o);
	id->reader = (o->big_endian ? TRAWL_ID_BIG_ENDIAN : 0) |
		     (o->implicit_thumb ? TRAWL_ID_IMPLICIT_THUMB : 0) |
		     (o->lenient ? TRAWL_ID_LENIENT : 0);
	id->format = (uint32_t)o->format;
}

/* Every byte, at memory speed (XXH3 streams faster than the page cache
 * hands bytes over). */
enum trawl_status trawl_trace_id_hash(const char *trace_path, struct trawl_trace_id *id,
				      struct trawl_error *err)
{
	struct stat sb;
	if (stat(trace_path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return idx_dir_hash(trace_path, id, err);
	int fd = open(trace_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", trace_path);
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	enum trawl_status st = TRAWL_OK;
	size_t cap = 1u << 20;
	uint8_t *buf = malloc(cap);
	XXH3_state_t *hs = XXH3_createState();
	if (!buf || !hs) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	XXH3_64bits_reset(hs);
	for (;;) {
		ssize_t n = read(fd, buf, cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			st = trawl_error_errno(err, errno, "cannot read '%s'", trace_path);
			goto out;
		}
		if (n == 0)
			break;
		XXH3_64bits_update(hs, buf, (size_t)n);
	}
	id->hash = XXH3_64bits_digest(hs);
	id->hashed = 1;
out:
	XXH3_freeState(hs);
	free(buf);
	close(fd);
	return st;
}

/* access() says yes to root for any folder, so a folder whose mode gives
 * nobody write permission (made read-only on purpose: a shared trace
 * collection) is taken at its word: the index goes to the cache. */
static int folder_writable(const char *d)
{
	struct stat sb;
	return access(d, W_OK) == 0 && stat(d, &sb) == 0 && (sb.st_mode & 0222);
}

static int dir_writable(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return 0;
	char *slash = strrchr(d, '/');
	int ok;
	if (!slash)
		ok = folder_writable(".");
	else {
		if (slash == d)
			slash[1] = 0;
		else
			*slash = 0;
		ok = folder_writable(d);
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

static enum trawl_status cache_path(const char *trace_path, char *buf, size_t size,
				    struct trawl_error *err);

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
	return cache_path(trace_path, buf, size, err);
}

/* The index's place in the cache folder (made if missing). */
static enum trawl_status cache_path(const char *trace_path, char *buf, size_t size,
				    struct trawl_error *err)
{
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
	[SEC_EVENTS] = 0,        [SEC_DELTAS] = 0,        [SEC_EVBLK] = EVB_REC,
	[SEC_MEMW] = MEMW_REC,   [SEC_SNAP] = SNAP_REC,
	[SEC_CLOB] = CLOB_REC,   [SEC_BACKDATE] = BD_REC, [SEC_REGW] = REGW_REC,
	[SEC_PCS] = PCS_REC,     [SEC_SYSREGS] = 0,
	[SEC_FENCE_MEMW] = FENCE_REC, [SEC_FENCE_SNAP] = FENCE_REC, [SEC_FENCE_CLOB] = FENCE_REC,
	[SEC_FENCE_BACKDATE] = FENCE_REC, [SEC_FENCE_REGW] = FENCE_REC, [SEC_FENCE_PCS] = FENCE_REC,
	[SEC_IDENTITY] = 0,      [SEC_SUMS] = 4,          [SEC_SUMS_TOP] = 8,
	[SEC_ZBLOCKS] = ZBLK_REC,
	[SEC_SW_EVENTS] = SW_REC, [SEC_SW_CPU] = SW_REC,  [SEC_SW_THREAD] = SW_REC,
};

/* Sorted sections and their fences. */
static const uint32_t fenced[6][2] = {
	{ SEC_MEMW, SEC_FENCE_MEMW }, { SEC_SNAP, SEC_FENCE_SNAP },
	{ SEC_CLOB, SEC_FENCE_CLOB }, { SEC_BACKDATE, SEC_FENCE_BACKDATE },
	{ SEC_REGW, SEC_FENCE_REGW }, { SEC_PCS, SEC_FENCE_PCS },
};

/* The IDENTITY records (format.h). A meaning key this version does not
 * know makes the index match nothing. */
static enum trawl_status read_identity(struct trawl_index *ix, struct trawl_error *err)
{
	const struct idx_sec *s = &ix->sec[SEC_IDENTITY];
	if (!idx_touch(ix, s->p, s->len))
		return idx_result(ix, TRAWL_OK, err);
	for (uint64_t pos = 0; pos < s->len;) {
		if (s->len - pos < 4)
			return TRAWL_CORRUPT(err, "'%s': bad identity record", ix->path);
		uint32_t key = ld16(s->p + pos), n = ld16(s->p + pos + 2);
		const uint8_t *v = s->p + pos + 4;
		if (n > s->len - pos - 4)
			return TRAWL_CORRUPT(err, "'%s': bad identity record", ix->path);
		if (key == ID_KEY_SOURCE && n == 4)
			ix->id.source = ld32(v);
		else if (key == ID_KEY_CONTENT && n == 8)
			ix->id.hash = ld64(v), ix->id.hashed = 1;
		else if (key == ID_KEY_READER && n == 4)
			ix->id.reader = ld32(v);
		else if (key == ID_KEY_FORMAT && n == 4)
			ix->id.format = ld32(v);
		else if (key == ID_KEY_DEFS && n == 8)
			ix->id.defs_hash = ld64(v), ix->id.has_defs = 1;
		else if (key == ID_KEY_READER_HASH && n == 8)
			ix->id.reader_hash = ld64(v);
		else if (key == ID_KEY_READER_VERSION && n == 4)
			ix->id.reader_version = ld32(v);
		else if (key == ID_KEY_SKIPPED && n == 8)
			ix->id.skipped = ld64(v);
		else if (key == ID_KEY_CUT && n == 8)
			ix->id.cut = ld64(v);
		else if (key == ID_KEY_DAMAGED && n == 8)
			ix->id.damaged = ld64(v);
		else if (key == ID_KEY_TIME_BACK) {
			uint64_t c = n >= 8 ? ld64(v) : 0;
			if (n < 8 || n % 8 || (n - 8) / 8 != (c < ID_TIME_BACK_MAX ? c : ID_TIME_BACK_MAX))
				return TRAWL_CORRUPT(err, "'%s': bad identity record", ix->path);
			ix->has_time_back = 1;
			ix->time_back = c;
			ix->time_back_ev = v + 8;
		}
		else if (key < 0x8000)
			ix->unknown_key = 1;
		pos += 4 + n;
	}
	return TRAWL_OK;
}

/* The section table: each entry's id, record size and bounds, and every
 * section this kind and these flags need present. */
static enum trawl_status read_sections(struct trawl_index *ix, uint32_t nsec, int compact, int sw,
				       struct trawl_error *err)
{
	const uint8_t *h = ix->map;
	const char *p = ix->path;
	for (uint32_t i = 0; i < nsec; i++) {
		const uint8_t *e = h + 128 + 32 * i;
		uint32_t sid = ld32(e), rec = ld32(e + 4);
		uint64_t off = ld64(e + 8), len = ld64(e + 16);
		if (sid == 0 || sid > SEC_COUNT_ || sid == SEC_UNUSED4_)
			continue; /* not a section this version reads */
		int z = compact && idx_sec_compressed(sid);
		if (ix->sec[sid].p || rec != sec_rec[sid] || off < IDX_HEADER_SIZE || off % 8 ||
		    off > ix->size || len > ix->size - off || (rec && !z && len % rec) ||
		    (sid == SEC_ZBLOCKS && !compact) || (sid >= SEC_SW_EVENTS && !sw))
			return TRAWL_CORRUPT(err, "'%s': bad section table entry %u", p, i);
		struct idx_sec *d = &ix->sec[sid];
		d->ix = ix;
		d->id = sid;
		d->key2 = sid == SEC_REGW ? REGW_EV_MASK : ~(uint64_t)0;
		d->p = ix->map + off;
		d->len = len;
		d->rec = rec;
		d->n = rec ? len / rec : len;
		d->sum = ld64(e + 24);
		d->z = z;
		d->zoff = off;
		d->zlen = len;
		d->zbb = zb_block_bytes(rec);
	}
	for (uint32_t sid = 1; sid <= SEC_COUNT_; sid++)
		if (!ix->sec[sid].p && sid != SEC_UNUSED4_ &&
		    (sid != SEC_ZBLOCKS || compact) && (sid < SEC_SW_EVENTS || sw))
			return TRAWL_CORRUPT(err, "'%s': index section %u is missing", p, sid);
	if (sw && (ix->sec[SEC_SW_EVENTS].n != ix->nev || ix->sec[SEC_SW_CPU].n != ix->sec[SEC_SW_THREAD].n ||
		   ix->sec[SEC_SW_CPU].n > ix->nev))
		return TRAWL_CORRUPT(err, "'%s': software event sections disagree with the header", p);
	return TRAWL_OK;
}

/* System register names: NUL-terminated strings. */
static enum trawl_status read_sysnames(struct trawl_index *ix, struct trawl_error *err)
{
	const char *p = ix->path;
	const struct idx_sec *s = &ix->sec[SEC_SYSREGS];
	if (!idx_touch(ix, s->p, s->len))
		return idx_result(ix, TRAWL_OK, err);
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

/* Check the header and the section table of a mapped file. */
static enum trawl_status check_header(struct trawl_index *ix, struct trawl_error *err)
{
	const uint8_t *h = ix->map;
	const char *p = ix->path;
	if (ix->size < IDX_HEADER_SIZE || memcmp(h, IDX_MAGIC, 8) != 0)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is not a trawl index", p);
	if (ld32(h + 8) != IDX_VERSION)
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				       "'%s' is an index of format version %u (this trawl reads %u)",
				       p, ld32(h + 8), IDX_VERSION);
	if (ld64(h + IDX_HDR_CHECKSUM_OFF) != idx_hash(0, h, IDX_HDR_CHECKSUM_OFF))
		return TRAWL_CORRUPT(err, "'%s': index header checksum mismatch", p);
	if (!(ld32(h + 16) & IDX_FLAG_COMPLETE))
		return TRAWL_CORRUPT(err, "'%s': index build did not complete", p);
	ix->kind = ld32(h + 12);
	ix->flags = ld32(h + 16);
	if (!trawl_index_kind_name(ix->kind))
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "'%s': unknown index kind %u",
				       p, ix->kind);
	int compact = ix->kind == TRAWL_INDEX_KIND_COMPACT;
	int sw = (ix->flags & IDX_FLAG_SW) != 0;
	if (ld32(h + 20) != IDX_HEADER_SIZE || ld64(h + 24) != ix->size)
		return TRAWL_CORRUPT(err, "'%s': index is truncated or has a bad size", p);
	ix->id.size = ld64(h + 32);
	ix->id.mtime_ns = ld64(h + 40);
	ix->id.ctime_ns = ld64(h + 48);
	ix->id.ino = ld64(h + 104);
	ix->id.dev = ld64(h + 112);
	ix->id.taken_ns = ld64(h + 904);
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
	enum trawl_status st = read_sections(ix, nsec, compact, sw, err);
	if (st)
		return st;
	if ((st = idx_checks_open(ix, err)))
		return st;
	/* every section but the checksums themselves lies in checksummed bytes */
	for (uint32_t sid = 1; sid <= SEC_COUNT_; sid++) {
		const struct idx_sec *d = &ix->sec[sid];
		if (sid == SEC_SUMS || sid == SEC_SUMS_TOP)
			continue;
		if (d->p && d->zoff + d->zlen > ix->chk->covered)
			return TRAWL_CORRUPT(err, "'%s': index section %u is not covered by checksums",
					     p, sid);
	}
	if (compact && (st = idx_zcache_open(ix, err)))
		return st;
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
	if (ix->sec[SEC_EVBLK].n != ix->nev / EVB_EVENTS + (ix->nev % EVB_EVENTS != 0))
		return TRAWL_CORRUPT(err, "'%s': index section sizes disagree with the header", p);
	if ((st = read_identity(ix, err)))
		return st;
	return read_sysnames(ix, err);
}

/* Open, check it is a regular file that starts like an index (only such a
 * file may be called damaged and rebuilt over), map it, check the header
 * and that it is this trace's index, then note the first and last event:
 * each step's failure has its own message, and all leave through one exit. */
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
	if ((st = check_header(ix, err)))
		goto fail;
	if (id && trawl_index_match(ix, id) != TRAWL_INDEX_SAME) {
		st = trawl_error_set(err, TRAWL_ERR_NOT_FOUND,
				     "'%s' is the index of another version of the trace", index_path);
		goto fail;
	}
	for (unsigned f = 0; ix->nev && f < 3; f++)
		if ((st = idx_ev_field(ix, 0, f, &ix->first_ev[f], err)) ||
		    (st = idx_ev_field(ix, ix->nev - 1, f, &ix->last_ev[f], err)))
			goto fail;
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
	idx_checks_close(ix);
	idx_zcache_close(ix);
	free(ix->sysnames);
	free(ix->path);
	free(ix);
}

enum trawl_index_match trawl_index_match(const struct trawl_index *ix,
					 const struct trawl_trace_id *id)
{
	/* no record of where times go backwards: built before trawl kept
	 * one, and its searches by time would assume they never do */
	if (ix->unknown_key || !ix->has_time_back)
		return TRAWL_INDEX_STALE;
	return trawl_trace_id_compare(&ix->id, id);
}

enum trawl_index_match trawl_trace_id_compare(const struct trawl_trace_id *x,
					      const struct trawl_trace_id *id)
{
	/* another reader version made other events of the same bytes: the
	 * index is out of date as for a changed trace (rebuilt in place) */
	if (x->source != id->source || x->size != id->size || x->reader_version != id->reader_version)
		return TRAWL_INDEX_STALE;
	if (x->reader != id->reader || x->format != id->format || x->has_defs != id->has_defs ||
	    x->defs_hash != id->defs_hash || x->reader_hash != id->reader_hash)
		return TRAWL_INDEX_OPTIONS;
	/* file times have a granularity (a few ms here, 2 s on FAT): a change
	 * within that of when the stat was recorded may leave it the same, so
	 * such a "racy" stat is confirmed by the hash (git's racy-clean rule) */
	int racy = id->ctime_ns + IDX_RACY_NS >= x->taken_ns;
	if (x->mtime_ns == id->mtime_ns && x->ctime_ns == id->ctime_ns && x->ino == id->ino &&
	    x->dev == id->dev && (!racy || (id->hashed && x->hashed && x->hash == id->hash)))
		return TRAWL_INDEX_SAME;
	if (!id->hashed)
		return TRAWL_INDEX_UNSURE;
	return x->hashed && x->hash == id->hash ? TRAWL_INDEX_SAME : TRAWL_INDEX_STALE;
}

uint32_t trawl_index_reader_options(const struct trawl_index *ix)
{
	return ix->id.reader;
}

uint64_t trawl_index_time_back(const struct trawl_index *ix, uint64_t *line)
{
	if (line && ix->time_back) {
		struct trawl_index_event e;
		*line = trawl_index_event(ix, ld64(ix->time_back_ev), &e, NULL) == TRAWL_OK ? e.line : 0;
	}
	return ix->time_back;
}

uint64_t trawl_index_skipped_lines(const struct trawl_index *ix)
{
	return ix->id.skipped;
}

uint64_t trawl_index_cut_lines(const struct trawl_index *ix)
{
	return ix->id.cut;
}

uint64_t trawl_index_damaged(const struct trawl_index *ix)
{
	return ix->id.damaged;
}

const char *trawl_index_path(const struct trawl_index *ix)
{
	return ix->path;
}

enum trawl_status trawl_index_damage(const struct trawl_index *ix, struct trawl_error *err)
{
	return idx_result(ix, TRAWL_OK, err);
}

enum trawl_status trawl_index_verify(struct trawl_index *ix, struct trawl_error *err)
{
	enum trawl_status st = idx_checks_all(ix, err);
	if (st)
		return st;
	for (uint32_t sid = 1; sid <= SEC_COUNT_; sid++) {
		const struct idx_sec *s = &ix->sec[sid];
		if (!s->p)
			continue;
		struct idx_hasher hs;
		idx_hasher_init(&hs, 0);
		for (uint64_t at = 0; at < s->zlen; at += IDX_VERIFY_WINDOW) {
			uint64_t n = s->zlen - at < IDX_VERIFY_WINDOW ? s->zlen - at : IDX_VERIFY_WINDOW;
			idx_hasher_update(&hs, ix->map + s->zoff + at, (size_t)n);
			idx_map_release(ix, ix->map + s->zoff + at, n);
		}
		if (idx_hasher_final(&hs) != s->sum)
			return TRAWL_CORRUPT(err, "'%s': checksum mismatch in index section %u",
					     ix->path, sid);
	}
	return TRAWL_OK;
}

void trawl_index_get_info(const struct trawl_index *ix, struct trawl_index_info *info)
{
	memset(info, 0, sizeof *info);
	info->version = IDX_VERSION;
	info->kind = ix->kind;
	info->sw_events = ix->sec[SEC_SW_CPU].n;
	info->file_size = ix->size;
	info->events = ix->nev;
	info->lines = ix->last_line;
	info->trace_size = ix->id.size;
	info->source = ix->id.source;
	info->reader_version = ix->id.reader_version;
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
	info->no_text = (ix->flags & IDX_FLAG_NO_TEXT) != 0;
}

/* Read the trace and build its index at index_path, or in memory (NULL:
 * *memfd then holds it). */
static enum trawl_status build_into(const char *trace_path, const char *index_path,
				    const struct trawl_index_build_options *opt, int *memfd,
				    struct trawl_error *err)
{
	struct trawl_trace_id id;
	struct trawl_reader *r = NULL;
	struct trawl_index_builder *b = NULL;
	/* the identity is taken before reading: a trace changed during the
	 * build then no longer matches, and the next use rebuilds */
	enum trawl_status st = trawl_trace_id_get(trace_path, &id, err);
	if (st || (st = trawl_trace_id_hash(trace_path, &id, err)))
		return st;
	trawl_trace_id_set_options(&id, opt ? &opt->reader : NULL);
	if ((st = idx_perf_hash(trace_path, opt ? &opt->reader : NULL, &id, err)))
		return st;
	/* the input layer maps plain files in windows and releases pages
	 * behind the reader, so the build's memory does not follow the trace */
	if ((st = trawl_reader_open(&r, trace_path, opt ? &opt->reader : NULL, err)))
		goto out;
	if ((st = trawl_index_builder_create(&b, index_path, opt, err)))
		goto out;
	struct trawl_event_batch batch;
	struct trawl_input *in = trawl_reader_input(r);
	uint64_t until = memfd && opt ? opt->until_line : 0;
	while ((st = trawl_reader_next(r, &batch, err)) == TRAWL_OK) {
		if ((st = trawl_index_builder_add(b, &batch, err)))
			goto out;
		if (until && batch.count && batch.events[batch.count - 1].line > until) {
			st = TRAWL_END; /* the prefix asked for is in */
			break;
		}
		if (opt && opt->progress)
			opt->progress(opt->progress_ctx, trawl_input_raw_pos(in),
				      trawl_input_raw_size(in));
	}
	if (st != TRAWL_END)
		goto out;
	id.skipped = trawl_reader_stats(r)->bad_lines;
	id.cut = trawl_reader_stats(r)->cut_lines | trawl_reader_stats(r)->cut_input;
	id.damaged = trawl_reader_stats(r)->damaged;
	st = trawl_index_builder_finish(b, &id, err);
	if (!st && memfd)
		*memfd = idx_builder_take_memfd(b);
out:
	if (st && err && !err->file[0] && err->line)
		trawl_error_at(err, trace_path, err->line, err->column, err->offset);
	trawl_index_builder_destroy(b);
	trawl_reader_close(r);
	return st;
}

enum trawl_status trawl_index_build(const char *trace_path, const char *index_path,
				    const struct trawl_index_build_options *opt,
				    struct trawl_error *err)
{
	return build_into(trace_path, index_path, opt, NULL, err);
}

enum trawl_status trawl_index_build_memory(struct trawl_index **out, const char *trace_path,
					   const struct trawl_index_build_options *opt,
					   struct trawl_error *err)
{
	int fd = -1;
	*out = NULL;
	enum trawl_status st = build_into(trace_path, NULL, opt, &fd, err);
	if (st)
		return st;
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	st = trawl_index_open(out, p, NULL, err);
	close(fd); /* the handle opened its own */
	if (!st) {
		char *name = strdup("(index in memory)");
		if (name) {
			free((*out)->path);
			(*out)->path = name;
		}
	}
	return st;
}

/* The content matched but the file's times or inode changed (cp -a, touch,
 * chmod...), or the stat was racy: record the new stat and when it was
 * taken, so the next use need not hash again.
 * Best effort: a read-only index is only hashed each time. */
static void refresh_stat(const char *index_path, const struct trawl_trace_id *id)
{
	int fd = open(index_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	uint8_t h[IDX_HEADER_SIZE];
	if (pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h && memcmp(h, IDX_MAGIC, 8) == 0 &&
	    ld64(h + IDX_HDR_CHECKSUM_OFF) == idx_hash(0, h, IDX_HDR_CHECKSUM_OFF)) {
		st64(h + 40, id->mtime_ns);
		st64(h + 48, id->ctime_ns);
		st64(h + 104, id->ino);
		st64(h + 112, id->dev);
		st64(h + 904, id->taken_ns);
		st64(h + IDX_HDR_CHECKSUM_OFF, idx_hash(0, h, IDX_HDR_CHECKSUM_OFF));
		if (pwrite(fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
			/* the old header stays valid: nothing to undo */
		}
	}
	close(fd);
}

static void note(const struct trawl_index_build_options *opt, const char *path, const char *why)
{
	if (!opt || !opt->reader.warn)
		return;
	struct trawl_error w;
	trawl_error_clear(&w);
	trawl_error_set(&w, TRAWL_OK, "the index '%s' %s: building it again", path, why);
	opt->reader.warn(opt->reader.warn_ctx, &w);
}

static const char *const id_opt_names[] = { "--big-endian", "--implicit-thumb", "--lenient" };

static void options_text(uint32_t bits, uint32_t format, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < 3; i++)
		if (bits & (1u << i) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", id_opt_names[i]);
	if (format && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%sformat %u", n ? " " : "", format);
	if (!n)
		snprintf(buf, size, "none");
}

/* Try one index file. 1: *out is open and matches; 0: absent or not
 * usable (why in *why); -1: an error to report (err set). */
static int try_index(struct trawl_index **out, const char *trace_path, const char *path,
		     struct trawl_trace_id *id, int explicit_path, uint32_t kind,
		     const char **why, struct trawl_error *err)
{
	enum trawl_status st = trawl_index_open(out, path, NULL, err);
	if (st == TRAWL_ERR_NOT_FOUND) {
		*why = NULL;
		return 0;
	}
	if (st) {
		/* damaged, incomplete, of an older format, or (in our own
		 * default place) not an index at all: rebuilt. A file named by
		 * --index that is not an index is left alone. */
		if (st == TRAWL_ERR_IO || st == TRAWL_ERR_NOMEM ||
		    (explicit_path && st == TRAWL_ERR_FORMAT))
			return -1;
		*why = st == TRAWL_ERR_UNSUPPORTED ? "is of an older format" : "is damaged";
		return 0;
	}
	enum trawl_index_match m = trawl_index_match(*out, id);
	if (m == TRAWL_INDEX_UNSURE) {
		if ((st = trawl_trace_id_hash(trace_path, id, err))) {
			trawl_index_close(*out);
			*out = NULL;
			return -1;
		}
		m = trawl_index_match(*out, id);
		if (m == TRAWL_INDEX_SAME)
			refresh_stat(path, id);
	}
	if (m == TRAWL_INDEX_SAME && kind && (*out)->kind != kind) {
		trawl_index_close(*out);
		*out = NULL;
		*why = "is of another kind";
		return 0;
	}
	if (m == TRAWL_INDEX_SAME)
		return 1;
	uint32_t had = (*out)->id.reader, hadf = (*out)->id.format;
	int other_decode = (*out)->id.reader_hash != id->reader_hash;
	int other_reader = (*out)->id.reader_version != id->reader_version;
	int older = !(*out)->has_time_back || (*out)->unknown_key;
	trawl_index_close(*out);
	*out = NULL;
	if (m == TRAWL_INDEX_OPTIONS && explicit_path) {
		char a[96], b[96];
		options_text(had, hadf, a, sizeof a);
		options_text(id->reader, id->format, b, sizeof b);
		trawl_error_set(err, TRAWL_ERR_FORMAT,
				"'%s' was built with reader options: %s; asked for: %s%s. Give the "
				"same ones, or rebuild it with trawl index --force", path, a, b,
				other_decode ? " (and other ETE options or files: --ete-*; "
					       "perf.data: --symfs, --binary-dir, --vmlinux, --kallsyms)" : "");
		return -1;
	}
	/* key 6 hashes the ETE and perf.data options with the files they name:
	 * a changed program is no other option the user gave */
	*why = m == TRAWL_INDEX_OPTIONS && other_decode && had == id->reader && hadf == id->format
	       ? "was built with other reader options or from other files they name (--ete-*; "
		 "perf.data: its mapped programs, --vmlinux, --kallsyms)"
	       : m == TRAWL_INDEX_OPTIONS ? "was built with other reader options"
	       : other_reader           ? (id->source == TRAWL_INDEX_SOURCE_ETE ||
					   id->source == TRAWL_INDEX_SOURCE_PERF
					   ? "was built by another version of trawl's ETE reader"
					   : id->source == TRAWL_INDEX_SOURCE_SWEVENTS
					   ? "was built by another version of trawl's software event reader"
					   : "was built by another version of trawl's text reader")
	       : older                  ? "was built by another version of trawl"
					: "belongs to another version of the trace";
	return 0;
}

/* No index could be written where it belongs (the trace's folder, then the
 * cache folder): say so, and build one in memory for this command. */
static enum trawl_status build_nowhere(struct trawl_index **out, const char *trace_path,
				       const struct trawl_index_build_options *opt,
				       const struct trawl_error *why, int *built,
				       struct trawl_error *err)
{
	if (opt && opt->reader.warn) {
		struct trawl_error w;
		trawl_error_clear(&w);
		trawl_error_set(&w, TRAWL_OK, "no index can be written for '%s' (%s): building one "
				"in memory for this command", trace_path, why->message);
		opt->reader.warn(opt->reader.warn_ctx, &w);
	}
	enum trawl_status st = trawl_index_build_memory(out, trace_path, opt, err);
	if (!st && built)
		*built = 1;
	return st;
}

/* Build at the default place; when that cannot be written (a folder that
 * looked writable but is not, such as an immutable one), in the cache
 * folder; when neither can, in memory. */
static enum trawl_status build_default(struct trawl_index **out, const char *trace_path,
				       const char *index_path,
				       const struct trawl_index_build_options *opt, int *built,
				       struct trawl_error *err)
{
	char cache[PATH_MAX];
	enum trawl_status st = trawl_index_build(trace_path, index_path, opt, err);
	if (st == TRAWL_ERR_IO &&
	    !(st = cache_path(trace_path, cache, sizeof cache, err)) && strcmp(cache, index_path)) {
		index_path = cache;
		st = trawl_index_build(trace_path, index_path, opt, err);
	}
	if (st == TRAWL_ERR_IO) {
		struct trawl_error why = *err;
		trawl_error_clear(err);
		return build_nowhere(out, trace_path, opt, &why, built, err);
	}
	if (st)
		return st;
	if (built)
		*built = 1;
	return trawl_index_open(out, index_path, NULL, err);
}

/* The order of places is the rule users rely on: a good index beside the
 * trace first (even in a read-only folder), then the default place (beside
 * when writable, else the cache), built there when missing or unusable;
 * when no folder can be had, in memory. An explicit path is only ever that
 * path. One function so the "why" of a rebuild and the nowhere case are
 * decided once for every command. */
enum trawl_status trawl_index_open_trace(struct trawl_index **out, const char *trace_path,
					 const char *index_path,
					 const struct trawl_index_build_options *opt, int *built,
					 struct trawl_error *err)
{
	char def[PATH_MAX], beside[PATH_MAX];
	struct trawl_trace_id id;
	enum trawl_status st;
	const char *why = NULL;
	int explicit_path = index_path != NULL;
	uint32_t kind = opt ? opt->kind : 0;
	struct trawl_error local, nowhere;
	if (!err)
		err = &local;
	if (built)
		*built = 0;
	*out = NULL;
	trawl_error_clear(&nowhere);
	if ((st = trawl_trace_id_get(trace_path, &id, err)))
		return st;
	trawl_trace_id_set_options(&id, opt ? &opt->reader : NULL);
	if ((st = idx_perf_hash(trace_path, opt ? &opt->reader : NULL, &id, err)))
		return st;
	if (!index_path) {
		st = trawl_index_default_path(trace_path, def, sizeof def, err);
		if (st && st != TRAWL_ERR_IO)
			return st;
		if (st) {
			nowhere = *err; /* no folder for an index: in memory, below */
			trawl_error_clear(err);
			def[0] = 0;
		}
		index_path = def;
		/* a read-only folder may still hold a good index beside the trace */
		if ((size_t)snprintf(beside, sizeof beside, "%s.trawlidx", trace_path) <
			    sizeof beside && strcmp(beside, def) != 0) {
			int r = try_index(out, trace_path, beside, &id, 0, kind, &why, err);
			if (r)
				return r > 0 ? TRAWL_OK : err->status;
			trawl_error_clear(err);
		}
		if (nowhere.status)
			return build_nowhere(out, trace_path, opt, &nowhere, built, err);
	}
	int r = try_index(out, trace_path, index_path, &id, explicit_path, kind, &why, err);
	if (r)
		return r > 0 ? TRAWL_OK : err->status;
	trawl_error_clear(err);
	if (why)
		note(opt, index_path, why);
	if (!explicit_path)
		return build_default(out, trace_path, index_path, opt, built, err);
	if ((st = trawl_index_build(trace_path, index_path, opt, err)))
		return st;
	if (built)
		*built = 1;
	return trawl_index_open(out, index_path, NULL, err);
}
