/* The identity of a trace that is a directory (a CTF trace: metadata,
 * stream files, buffer files a crashed program left; or a set of such
 * traces, one level down). Its own size and times say nothing of its
 * files' contents (appending to a stream changes neither), so the
 * identity is taken over the regular files in it and in its
 * subdirectories: sizes summed, the latest modification and change times
 * (the directories' included: a file added or removed), and a hash of
 * every file's name, size and bytes in name order. An ETE snapshot is
 * the files its ini files name instead, wherever they are (docs/ete.md,
 * "As a trace"): its buffers, device files and memory dumps, and nothing
 * else the folder holds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "core/grow.h"
#include "index/dir-id.h"
#include "trawl/ete.h"
#include "trawl/input.h"
#include "trawl/perf.h"

struct names {
	char **v;
	size_t n;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int names_add(struct names *l, const char *a, const char *b)
{
	char **v = realloc(l->v, (l->n + 1) * sizeof *v);
	if (!v)
		return -1;
	l->v = v;
	size_t n = strlen(a) + strlen(b) + 1;
	if (!(v[l->n] = malloc(n)))
		return -1;
	snprintf(v[l->n], n, "%s%s", a, b);
	l->n++;
	return 0;
}

/* The entries of dir (prefixed by `pre`), and one level down those of its
 * subdirectories: a set of traces is a directory of trace directories.
 * A subdirectory is listed as "name/" (its times count, it has no bytes). */
static enum trawl_status list_level(const char *dir, const char *pre, int depth, struct names *l,
				    struct trawl_error *err)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, pre);
	DIR *d = opendir(path);
	if (!d)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	struct dirent *de;
	enum trawl_status st = TRAWL_OK;
	while ((de = readdir(d)) && !st) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat sb;
		char rel[4096];
		snprintf(rel, sizeof rel, "%s%s", pre, de->d_name);
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path || stat(path, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode) && depth == 0) {
			if (names_add(l, rel, "/") != 0) {
				st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
				break;
			}
			snprintf(rel + strlen(rel), sizeof rel - strlen(rel), "/");
			st = list_level(dir, rel, 1, l, err);
		} else if (S_ISREG(sb.st_mode) && names_add(l, rel, "") != 0) {
			st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		}
	}
	closedir(d);
	return st;
}

struct named {
	struct names *l;
	const char *dir;
	int nomem;
};

/* A file the snapshot names, relative to the directory when inside it
 * (so a copied snapshot keeps its hash), else as named (absolute). */
static void add_named(void *ctx, const char *path)
{
	struct named *n = ctx;
	size_t dl = strlen(n->dir);
	const char *rel = !strncmp(path, n->dir, dl) && path[dl] == '/' ? path + dl + 1 : path;
	n->nomem |= names_add(n->l, rel, "") != 0;
}

static enum trawl_status list_files(const char *dir, struct names *l, struct trawl_error *err)
{
	if (trawl_ete_snapshot_probe(dir)) {
		struct named n = { l, dir, 0 };
		trawl_ete_snapshot_files(dir, add_named, &n);
		return n.nomem ? trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory") : TRAWL_OK;
	}
	enum trawl_status st = list_level(dir, "", 0, l, err);
	if (!st && l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, name_cmp);
	return st;
}

static uint64_t ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

/* Call fn for every entry list_files finds, with its path and stat, in
 * name order; stops at the first error. */
typedef enum trawl_status (*entry_fn)(void *ctx, const char *rel, const char *path, const struct stat *sb,
				      struct trawl_error *err);

static enum trawl_status each_entry(const char *dir, entry_fn fn, void *ctx, struct trawl_error *err)
{
	struct names l = { 0 };
	enum trawl_status st = list_files(dir, &l, err);
	char path[4096];
	for (size_t i = 0; i < l.n && !st; i++) {
		struct stat sb;
		if (l.v[i][0] == '/')
			snprintf(path, sizeof path, "%s", l.v[i]);
		else
			snprintf(path, sizeof path, "%s/%s", dir, l.v[i]);
		if (stat(path, &sb) == 0)
			st = fn(ctx, l.v[i], path, &sb, err);
	}
	names_free(&l);
	return st;
}

static enum trawl_status stat_entry(void *ctx, const char *rel, const char *path, const struct stat *sb,
				    struct trawl_error *err)
{
	struct trawl_trace_id *id = ctx;
	(void)rel, (void)path, (void)err;
	if (S_ISREG(sb->st_mode))
		id->size += (uint64_t)sb->st_size;
	if (ns(&sb->st_mtim) > id->mtime_ns)
		id->mtime_ns = ns(&sb->st_mtim);
	if (ns(&sb->st_ctim) > id->ctime_ns)
		id->ctime_ns = ns(&sb->st_ctim);
	return TRAWL_OK;
}

enum trawl_status idx_dir_stat(const char *dir, const struct stat *dsb, struct trawl_trace_id *id,
			       struct trawl_error *err)
{
	id->mtime_ns = ns(&dsb->st_mtim);
	id->ctime_ns = ns(&dsb->st_ctim);
	id->ino = (uint64_t)dsb->st_ino;
	id->dev = (uint64_t)dsb->st_dev;
	id->source = trawl_ete_snapshot_probe(dir) ? TRAWL_INDEX_SOURCE_ETE : TRAWL_INDEX_SOURCE_SWEVENTS;
	return each_entry(dir, stat_entry, id, err);
}

static enum trawl_status hash_file(XXH3_state_t *hs, const char *path, uint8_t *buf, size_t cap,
				   struct trawl_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	enum trawl_status st = TRAWL_OK;
	for (;;) {
		ssize_t n = read(fd, buf, cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			st = trawl_error_errno(err, errno, "cannot read '%s'", path);
		if (n <= 0)
			break;
		XXH3_64bits_update(hs, buf, (size_t)n);
	}
	close(fd);
	return st;
}

struct hashing {
	XXH3_state_t *hs;
	uint8_t *buf;
	size_t cap;
};

/* Name (with its NUL) and size before the bytes: moving bytes between
 * files changes the hash. A member trace's directory adds its name only. */
static enum trawl_status hash_entry(void *ctx, const char *rel, const char *path, const struct stat *sb,
				    struct trawl_error *err)
{
	struct hashing *h = ctx;
	XXH3_64bits_update(h->hs, rel, strlen(rel) + 1);
	if (!S_ISREG(sb->st_mode))
		return TRAWL_OK;
	uint64_t size = (uint64_t)sb->st_size;
	XXH3_64bits_update(h->hs, &size, sizeof size);
	return hash_file(h->hs, path, h->buf, h->cap, err);
}

enum trawl_status idx_dir_hash(const char *dir, struct trawl_trace_id *id, struct trawl_error *err)
{
	struct hashing h = { XXH3_createState(), malloc(1u << 20), 1u << 20 };
	enum trawl_status st = TRAWL_ERR_NOMEM;
	if (!h.hs || !h.buf)
		trawl_error_set(err, st, "out of memory");
	else if (XXH3_64bits_reset(h.hs), (st = each_entry(dir, hash_entry, &h, err)) == TRAWL_OK) {
		id->hash = XXH3_64bits_digest(h.hs);
		id->hashed = 1;
	}
	XXH3_freeState(h.hs);
	free(h.buf);
	return st;
}

/* The definitions file a reader names events from changes what the index
 * means (a dump's events get other names): its hash is part of the
 * identity. A file that cannot be read leaves has_defs set with hash 0;
 * the reader then fails to open anyway. */
void idx_defs_hash(const char *path, struct trawl_trace_id *id)
{
	id->has_defs = 1;
	id->defs_hash = 0;
	XXH3_state_t *hs = XXH3_createState();
	uint8_t *buf = malloc(1u << 16);
	if (hs && buf) {
		XXH3_64bits_reset(hs);
		if (hash_file(hs, path, buf, 1u << 16, NULL) == TRAWL_OK)
			id->defs_hash = XXH3_64bits_digest(hs);
	}
	XXH3_freeState(hs);
	free(buf);
}

/* A string with its NUL, then (when it names a readable file) the file's
 * size and bytes: a changed register file or image changes the hash. */
static void hash_named(XXH3_state_t *hs, const char *s, const char *path, uint8_t *buf, size_t cap)
{
	XXH3_64bits_update(hs, s, strlen(s) + 1);
	struct stat sb;
	if (path && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
		uint64_t size = (uint64_t)sb.st_size;
		XXH3_64bits_update(hs, &size, sizeof size);
		hash_file(hs, path, buf, cap, NULL);
	}
}

uint64_t idx_ete_options_hash(const struct trawl_reader_options *o)
{
	XXH3_state_t *hs = XXH3_createState();
	uint8_t *buf = malloc(1u << 16);
	uint64_t h = 1;
	if (hs && buf) {
		XXH3_64bits_reset(hs);
		hash_named(hs, "config", o->ete_config, buf, 1u << 16);
		hash_named(hs, o->ete_config ? o->ete_config : "", NULL, buf, 0);
		hash_named(hs, o->ete_buffer ? o->ete_buffer : "", NULL, buf, 0);
		for (size_t i = 0; i < o->ete_nimages; i++) {
			char path[4096];
			uint64_t addr;
			int elf;
			int ok = trawl_ete_image_spec_parse(o->ete_images[i], path, sizeof path, &addr, &elf,
							    NULL) == TRAWL_OK;
			hash_named(hs, o->ete_images[i], ok ? path : NULL, buf, 1u << 16);
		}
		h = XXH3_64bits_digest(hs);
	}
	XXH3_freeState(hs);
	free(buf);
	return h ? h : 1;
}

/* A perf.data decodes over the files its mappings resolve to (recorded
 * path, --symfs, --binary-dir) and the kernel options: their names and
 * bytes go into id->reader_hash, so a changed or newly found image
 * rebuilds the index. Other traces are left as they are. */
enum trawl_status idx_perf_hash(const char *trace_path, const struct trawl_reader_options *o,
				struct trawl_trace_id *id, struct trawl_error *err)
{
	/* through the input layer, as the reader sees it (.gz, .zst); one
	 * that cannot be read is the reader's error to tell, not ours */
	struct trawl_input *in = NULL;
	struct trawl_chunk c;
	if (trawl_input_open(&in, trace_path, o ? &o->input : NULL, NULL) != TRAWL_OK)
		return TRAWL_OK;
	if (trawl_input_next(in, &c, NULL) != TRAWL_OK ||
	    !trawl_perf_is_perf((const uint8_t *)c.data, c.len)) {
		trawl_input_close(in);
		return TRAWL_OK;
	}
	struct trawl_perf_file *pf = NULL;
	XXH3_state_t *hs = XXH3_createState();
	uint8_t *buf = malloc(1u << 16), *all = NULL;
	size_t len = 0, cap = 0;
	enum trawl_status st = TRAWL_OK, rs;
	if (!hs || !buf) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	do {
		if (!trawl_grow((void **)&all, &cap, len + c.len, 1)) {
			st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
			goto out;
		}
		memcpy(all + len, c.data, c.len);
		len += c.len;
	} while ((rs = trawl_input_next(in, &c, NULL)) == TRAWL_OK);
	if (rs != TRAWL_END || trawl_perf_open_mem(&pf, all, len, trace_path, NULL) != TRAWL_OK)
		goto out;
	const char *symfs = o ? o->perf_symfs : NULL, *bindir = o ? o->perf_binary_dir : NULL;
	XXH3_64bits_reset(hs);
	XXH3_64bits_update(hs, &id->reader_hash, sizeof id->reader_hash);
	hash_named(hs, symfs ? symfs : "", NULL, buf, 0);
	hash_named(hs, bindir ? bindir : "", NULL, buf, 0);
	hash_named(hs, o && o->perf_vmlinux ? o->perf_vmlinux : "", o ? o->perf_vmlinux : NULL, buf, 1u << 16);
	hash_named(hs, o && o->perf_kallsyms ? o->perf_kallsyms : "", o ? o->perf_kallsyms : NULL, buf, 1u << 16);
	for (size_t i = 0; i < pf->nmmaps; i++) {
		char path[4096];
		if (!trawl_perf_mmap_has_file(&pf->mmaps[i]))
			continue;
		if (trawl_perf_find_file(pf, &pf->mmaps[i], symfs, bindir, path, sizeof path))
			hash_named(hs, path, path, buf, 1u << 16);
		else
			hash_named(hs, "", NULL, buf, 0);
	}
	uint64_t h = XXH3_64bits_digest(hs);
	id->reader_hash = h ? h : 1;
	id->source = TRAWL_INDEX_SOURCE_PERF;
	id->reader_version = trawl_index_source_reader_version(id->source);
out:
	trawl_perf_close(pf);
	trawl_input_close(in);
	XXH3_freeState(hs);
	free(buf);
	free(all);
	return st;
}
