/* Random access to trace text (include/trawl/text.h): a plain file is read
 * from its mapping; a compressed one through its seek file, one span at a
 * time, each checked against its sum before any of it is handed out. The
 * last two spans stay decoded, so a screen that straddles a restart point,
 * or a view that scrolls back and forth, decodes nothing twice. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "core/grow.h"
#include "text/text-int.h"

static enum trawl_status map_trace(struct trawl_text *t, struct trawl_error *err)
{
	t->fd = open(t->path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (t->fd < 0 || fstat(t->fd, &sb) != 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", t->path);
	if (!S_ISREG(sb.st_mode))
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				       "'%s' is not a regular file: its text cannot be read at an offset",
				       t->path);
	t->size = (uint64_t)sb.st_size;
	if (!t->size)
		return TRAWL_OK;
	void *m = mmap(NULL, (size_t)t->size, PROT_READ, MAP_SHARED, t->fd, 0);
	if (m == MAP_FAILED)
		return trawl_error_errno(err, errno, "cannot map '%s'", t->path);
	t->map = m;
	const uint8_t *p = t->map;
	if (t->size >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		t->comp = TRAWL_COMPRESSION_GZIP;
	else if (t->size >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		t->comp = TRAWL_COMPRESSION_ZSTD;
	return TRAWL_OK;
}

enum trawl_status trawl_text_open(struct trawl_text **out, const char *trace_path,
				  const struct trawl_text_options *opt, struct trawl_error *err)
{
	struct trawl_error local;
	if (!err)
		err = &local;
	*out = NULL;
	struct trawl_text *t = calloc(1, sizeof *t);
	if (!t || !(t->path = strdup(trace_path))) {
		free(t);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	t->fd = t->seek_fd = -1;
	if (opt)
		t->opt = *opt;
	if (t->opt.span && (t->opt.span < 64 || t->opt.span > SEEK_MAX_SPAN / 4)) {
		trawl_text_close(t);
		return trawl_error_set(err, TRAWL_ERR_USAGE, "a span of %u bytes is out of range",
				       t->opt.span);
	}
	enum trawl_status st = map_trace(t, err);
	if (!t->opt.span)
		t->opt.span = t->comp == TRAWL_COMPRESSION_GZIP ? SEEK_DEFAULT_SPAN_GZIP
								: SEEK_DEFAULT_SPAN_ZSTD;
	if (!st && t->comp != TRAWL_COMPRESSION_NONE)
		st = text_seek_open(t, err);
	if (st) {
		trawl_text_close(t);
		return st;
	}
	*out = t;
	return TRAWL_OK;
}

void text_seek_release(struct trawl_text *t)
{
	if (t->seek_map)
		munmap(t->seek_map, (size_t)t->seek_size);
	if (t->seek_fd >= 0)
		close(t->seek_fd);
	free(t->tab.points);
	memset(&t->tab, 0, sizeof t->tab);
	t->seek_map = NULL;
	t->seek_fd = -1;
	t->seek_size = 0;
	for (int i = 0; i < TEXT_CACHE; i++)
		t->cache[i].valid = 0;
}

void trawl_text_close(struct trawl_text *t)
{
	if (!t)
		return;
	text_seek_release(t);
	for (int i = 0; i < TEXT_CACHE; i++)
		free(t->cache[i].buf);
	if (t->map)
		munmap((void *)t->map, (size_t)t->size);
	if (t->fd >= 0)
		close(t->fd);
	free(t->scratch);
	free(t->seek_path);
	free(t->path);
	free(t);
}

uint64_t trawl_text_size(const struct trawl_text *t)
{
	return t->comp == TRAWL_COMPRESSION_NONE ? t->size : t->tab.text_size;
}

enum trawl_compression trawl_text_compression(const struct trawl_text *t)
{
	return t->comp;
}

const char *trawl_text_seek_path(const struct trawl_text *t)
{
	return t->in_memory ? NULL : t->seek_path;
}

uint64_t trawl_text_seek_size(const struct trawl_text *t)
{
	return t->seek_size;
}

/* The point whose span holds off (off < text size). */
static uint64_t find_point(const struct seek_table *tab, uint64_t off)
{
	uint64_t lo = 0, hi = tab->npoints;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (tab->points[mid].text_off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t span_end(const struct seek_table *tab, uint64_t i)
{
	return i + 1 < tab->npoints ? tab->points[i + 1].text_off : tab->text_size;
}

/* Decode span i into a cache slot (the older one) and check its sum. */
static enum trawl_status load_span(struct trawl_text *t, uint64_t i, struct text_span **out,
				   struct trawl_error *err)
{
	for (int k = 0; k < TEXT_CACHE; k++)
		if (t->cache[k].valid && t->cache[k].idx == i) {
			t->cache[k].tick = ++t->tick;
			*out = &t->cache[k];
			return TRAWL_OK;
		}
	struct text_span *c = &t->cache[0];
	for (int k = 1; k < TEXT_CACHE; k++)
		if (!t->cache[k].valid || t->cache[k].tick < c->tick)
			c = &t->cache[k];
	const struct seek_point *pt = &t->tab.points[i];
	size_t len = (size_t)(span_end(&t->tab, i) - pt->text_off);
	if (!trawl_grow((void **)&c->buf, &c->cap, len, 1))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	c->valid = 0;
	enum trawl_status st =
		t->comp == TRAWL_COMPRESSION_GZIP
			? seek_decode_gzip(pt, t->map, t->size, t->seek_map, c->buf, len, err)
			: seek_decode_zstd(pt, t->map, t->seek_map, c->buf, len, err);
	if (!st && XXH3_64bits(c->buf, len) != pt->text_sum)
		st = TRAWL_CORRUPT(err, "the text does not match its checksum");
	if (st) {
		if (st == TRAWL_ERR_CORRUPT) {
			char why[sizeof err->message];
			snprintf(why, sizeof why, "%s", err->message);
			trawl_error_set(err, st, "'%s', restart point at byte %llu of the text of '%s': %s",
					t->in_memory ? "(seek points in memory)" : t->seek_path,
					(unsigned long long)pt->text_off, t->path, why);
		}
		return st;
	}
	c->idx = i;
	c->len = len;
	c->valid = 1;
	c->tick = ++t->tick;
	*out = c;
	return TRAWL_OK;
}

/* Copy [off, off + n) (inside the text) into the scratch buffer. */
static enum trawl_status gather(struct trawl_text *t, uint64_t off, size_t n,
				struct trawl_error *err)
{
	if (!trawl_grow((void **)&t->scratch, &t->scratch_cap, n, 1))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	for (size_t done = 0; done < n;) {
		struct text_span *c;
		uint64_t i = find_point(&t->tab, off + done);
		enum trawl_status st = load_span(t, i, &c, err);
		if (st)
			return st;
		size_t at = (size_t)(off + done - t->tab.points[i].text_off);
		size_t k = c->len - at < n - done ? c->len - at : n - done;
		memcpy(t->scratch + done, c->buf + at, k);
		done += k;
	}
	return TRAWL_OK;
}

static enum trawl_status get_once(struct trawl_text *t, uint64_t off, size_t len, const char **p,
				  struct trawl_error *err)
{
	uint64_t i = find_point(&t->tab, off);
	if (off + len <= span_end(&t->tab, i)) {
		struct text_span *c;
		enum trawl_status st = load_span(t, i, &c, err);
		if (!st)
			*p = c->buf + (off - t->tab.points[i].text_off);
		return st;
	}
	enum trawl_status st = gather(t, off, len, err);
	*p = t->scratch;
	return st;
}

enum trawl_status trawl_text_get(struct trawl_text *t, uint64_t off, size_t len, const char **p,
				 size_t *got, struct trawl_error *err)
{
	struct trawl_error local;
	if (!err)
		err = &local;
	uint64_t size = trawl_text_size(t);
	*p = "";
	*got = 0;
	if (off >= size || !len)
		return TRAWL_OK;
	if (len > size - off)
		len = (size_t)(size - off);
	if (t->comp == TRAWL_COMPRESSION_NONE) {
		*p = (const char *)t->map + off;
		*got = len;
		return TRAWL_OK;
	}
	enum trawl_status st = get_once(t, off, len, p, err);
	if (st == TRAWL_ERR_CORRUPT && !t->rebuilt) {
		/* once per process: build the seek file again and retry */
		if ((st = text_seek_rebuild(t, err->message, err)) == TRAWL_OK)
			st = get_once(t, off, len, p, err);
	}
	if (st) {
		*p = "";
		return st;
	}
	*got = len;
	return TRAWL_OK;
}

enum trawl_status trawl_text_line(struct trawl_text *t, uint64_t off, size_t max, const char **p,
				  size_t *len, struct trawl_error *err)
{
	size_t want = max < 256 ? max : 256, got;
	for (;;) {
		enum trawl_status st = trawl_text_get(t, off, want, p, &got, err);
		if (st) {
			*len = 0;
			return st;
		}
		const char *nl = memchr(*p, '\n', got);
		if (nl || got < want || want >= max) {
			size_t n = nl ? (size_t)(nl - *p) : got;
			if (n && (*p)[n - 1] == '\r')
				n--;
			*len = n;
			return TRAWL_OK;
		}
		want = want > max / 8 ? max : want * 8;
	}
}

enum trawl_status trawl_text_verify(struct trawl_text *t, struct trawl_error *err)
{
	for (uint64_t i = 0; t->comp != TRAWL_COMPRESSION_NONE && i < t->tab.npoints; i++) {
		struct text_span *c;
		enum trawl_status st = load_span(t, i, &c, err);
		if (st)
			return st;
	}
	return TRAWL_OK;
}

enum trawl_status trawl_text_rebuild(struct trawl_text *t, struct trawl_error *err)
{
	if (t->comp == TRAWL_COMPRESSION_NONE)
		return TRAWL_OK;
	char why[sizeof err->message];
	snprintf(why, sizeof why, "%s", err->message);
	return text_seek_rebuild(t, why, err);
}
