/* Finding, checking and building the seek file of a compressed trace. It
 * is used only when it belongs to the trace as the file is now (the
 * index's identity rule, trawl_trace_id_compare) and every header field,
 * checksum and bound holds; otherwise it is built again, saying why. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "index/spool.h"
#include "text/text-int.h"

enum trawl_status trawl_text_default_seek_path(const char *trace_path, char *buf, size_t size,
					       struct trawl_error *err)
{
	char idx[4096];
	enum trawl_status st = trawl_index_default_path(trace_path, idx, sizeof idx, err);
	if (st)
		return st;
	size_t n = strlen(idx);
	if (n >= 9 && strcmp(idx + n - 9, ".trawlidx") == 0)
		idx[n - 9] = 0;
	if ((size_t)snprintf(buf, size, "%s.trawlseek", idx) >= size)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "path too long");
	return TRAWL_OK;
}

static void note(struct trawl_text *t, const char *fmt, ...)
{
	if (!t->opt.note)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	t->opt.note(t->opt.note_ctx, buf);
}

/* Map fd (size bytes) and check it; installs it in t on success. */
static enum trawl_status install(struct trawl_text *t, int fd, const char *name,
				 struct trawl_error *err)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return trawl_error_errno(err, errno, "cannot read '%s'", name);
	}
	uint64_t size = (uint64_t)sb.st_size;
	void *m = size ? mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (m == MAP_FAILED) {
		close(fd);
		return size ? trawl_error_errno(err, errno, "cannot map '%s'", name)
			    : TRAWL_CORRUPT(err, "'%s' is empty", name);
	}
	t->seek_fd = fd;
	t->seek_map = m;
	t->seek_size = size;
	enum trawl_status st = seek_file_parse(m, size, t->size, name, &t->tab, err);
	if (!st && t->tab.comp != (uint32_t)t->comp)
		st = TRAWL_CORRUPT(err, "'%s' is the seek file of another compression", name);
	if (st)
		text_seek_release(t);
	return st;
}

/* TRAWL_OK: path is installed and belongs to the trace as id says it is;
 * TRAWL_ERR_NOT_FOUND (missing or stale) or the damage found, with why
 * noted unless it is simply missing. */
static enum trawl_status try_load(struct trawl_text *t, const char *path,
				  struct trawl_trace_id *id, int explicit,
				  struct trawl_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? TRAWL_ERR_NOT_FOUND
				       : trawl_error_errno(err, errno, "cannot open '%s'", path);
	char magic[8];
	if (explicit && pread(fd, magic, 8, 0) == 8 && memcmp(magic, SEEK_MAGIC, 8) != 0) {
		close(fd);
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "'%s' is not a seek file: not overwritten", path);
	}
	enum trawl_status st = install(t, fd, path, err);
	if (st) {
		note(t, "%s: building it again", err->message);
		return st;
	}
	enum trawl_index_match m = trawl_trace_id_compare(&t->tab.id, id);
	if (m == TRAWL_INDEX_UNSURE) {
		id->hash = XXH3_64bits(t->map, (size_t)t->size);
		id->hashed = 1;
		m = trawl_trace_id_compare(&t->tab.id, id);
	}
	if (m != TRAWL_INDEX_SAME) {
		text_seek_release(t);
		note(t, "the seek file '%s' belongs to another version of '%s': building it again",
		     path, t->path);
		return TRAWL_ERR_NOT_FOUND;
	}
	free(t->seek_path);
	t->seek_path = strdup(path);
	return t->seek_path ? TRAWL_OK : trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
}

static enum trawl_status build_into(struct trawl_text *t, int fd, const char *name,
				    const struct trawl_trace_id *id, struct trawl_error *err)
{
	struct seek_table tab = { .comp = (uint32_t)t->comp, .id = *id };
	tab.id.hash = XXH3_64bits(t->map, (size_t)t->size);
	tab.id.hashed = 1;
	struct seek_sink sink = { .fd = fd, .pos = SEEK_HEADER, .name = name };
	struct seek_build b = { .trace = t->map, .trace_size = t->size, .trace_name = t->path,
				.span = t->opt.span, .progress = t->opt.progress,
				.progress_ctx = t->opt.progress_ctx, .sink = &sink, .tab = &tab };
	enum trawl_status st = t->comp == TRAWL_COMPRESSION_GZIP ? seek_build_gzip(&b, err)
								 : seek_build_zstd(&b, err);
	if (!st)
		st = seek_file_finish(&sink, &tab, err);
	if (!st && ftruncate(fd, (off_t)sink.pos) != 0)
		st = trawl_error_errno(err, errno, "cannot write '%s'", name);
	free(tab.points);
	return st;
}

/* Build into path (through PATH.tmpPID, renamed), or into memory when
 * path is NULL. TRAWL_ERR_IO when the file cannot be created. */
static enum trawl_status build(struct trawl_text *t, const char *path,
			       const struct trawl_trace_id *id, struct trawl_error *err)
{
	char tmp[4200];
	int fd;
	if (path) {
		/* what killed builds left (the index's rule, build.c) */
		char d[4200];
		snprintf(d, sizeof d, "%s", path);
		char *slash = strrchr(d, '/');
		if (slash)
			*slash = 0;
		idx_remove_stale_tmp(slash ? (*d ? d : "/") : ".", path);
		snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
		fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return trawl_error_errno(err, errno, "cannot create '%s'", tmp);
	} else {
		fd = memfd_create("trawl-seek", MFD_CLOEXEC);
		if (fd < 0)
			return trawl_error_errno(err, errno, "cannot keep the seek points in memory");
	}
	enum trawl_status st = build_into(t, fd, path ? tmp : "(memory)", id, err);
	if (!st && path && rename(tmp, path) != 0)
		st = trawl_error_errno(err, errno, "cannot rename '%s' to '%s'", tmp, path);
	if (st) {
		if (path)
			unlink(tmp);
		close(fd);
		return st;
	}
	free(t->seek_path);
	t->seek_path = strdup(path ? path : "(memory)");
	t->in_memory = !path;
	if (!t->seek_path) {
		close(fd);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	return install(t, fd, t->seek_path, err);
}

static enum trawl_status trace_id(struct trawl_text *t, struct trawl_trace_id *id,
				  struct trawl_error *err)
{
	/* the bytes alone: no reader options or reader version, since a seek
	 * table does not depend on how its lines are parsed */
	return trawl_trace_id_get(t->path, id, err);
}

/* The default places: TRACE.trawlseek beside the trace (used when it
 * matches, even in a read-only folder), then where the index's default
 * path points; built there, else in memory. */
static enum trawl_status open_default(struct trawl_text *t, struct trawl_trace_id *id,
				      struct trawl_error *err)
{
	char beside[4200], def[4200];
	snprintf(beside, sizeof beside, "%s.trawlseek", t->path);
	enum trawl_status st = try_load(t, beside, id, 0, err);
	if (st != TRAWL_ERR_NOT_FOUND && st != TRAWL_ERR_CORRUPT && st != TRAWL_ERR_UNSUPPORTED)
		return st;
	struct trawl_error derr;
	trawl_error_clear(&derr);
	if (trawl_text_default_seek_path(t->path, def, sizeof def, &derr) == TRAWL_OK) {
		if (strcmp(def, beside) != 0) {
			st = try_load(t, def, id, 0, err);
			if (st != TRAWL_ERR_NOT_FOUND && st != TRAWL_ERR_CORRUPT &&
			    st != TRAWL_ERR_UNSUPPORTED)
				return st;
		}
		st = build(t, def, id, err);
		if (st != TRAWL_ERR_IO)
			return st;
		derr = *err;
	}
	note(t, "no place to write the seek file of '%s' (%s): kept in memory for this command",
	     t->path, derr.message);
	return build(t, NULL, id, err);
}

enum trawl_status text_seek_open(struct trawl_text *t, struct trawl_error *err)
{
	struct trawl_trace_id id;
	enum trawl_status st = trace_id(t, &id, err);
	if (st)
		return st;
	if (!t->opt.seek_path)
		return open_default(t, &id, err);
	st = try_load(t, t->opt.seek_path, &id, 1, err);
	if (st != TRAWL_ERR_NOT_FOUND && st != TRAWL_ERR_CORRUPT && st != TRAWL_ERR_UNSUPPORTED)
		return st;
	return build(t, t->opt.seek_path, &id, err);
}

enum trawl_status text_seek_rebuild(struct trawl_text *t, const char *why,
				    struct trawl_error *err)
{
	char path[4200];
	int mem = t->in_memory;
	snprintf(path, sizeof path, "%s", t->seek_path ? t->seek_path : "");
	t->rebuilt = 1;
	note(t, "%s: building the seek file again", why);
	text_seek_release(t);
	struct trawl_trace_id id;
	enum trawl_status st = trace_id(t, &id, err);
	return st ? st : build(t, mem ? NULL : path, &id, err);
}
