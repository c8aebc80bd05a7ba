/* Opening an ETE source for the reader backend (docs/ete.md, "As a
 * trace"): a snapshot directory brings its registers, images and buffers;
 * a raw TRBE buffer takes its registers, TRBE pointers and framing from
 * the --ete-config file. Images given as options are added to either. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ete/ete-reader.h"
#include "ete/ini.h"
#include "trawl/file.h"

uint64_t ete_stream_offset(const struct ete_stream *s, uint64_t off)
{
	const struct ete_reader *r = s->r;
	if (r->perf)
		return ete_perf_offset(s, off);
	if (r->df)
		return s->frame_off;
	return off < r->plen[0] ? r->pstart[0] + off : r->pstart[1] + (off - r->plen[0]);
}

static void on_id_bytes(void *ctx, uint8_t id, const uint8_t *data, size_t n, uint64_t off)
{
	struct ete_reader *r = ctx;
	struct ete_stream *s = ete_frame_stream(r, id, off);
	if (!s)
		return;
	s->frame_off = off;
	trawl_ete_pkt_decoder_feed(s->pd, data, n);
}

uint16_t ete_source_cpu(const struct trawl_ete_snapshot *snap, size_t k)
{
	const char *core = snap->sources[k].core;
	for (size_t i = 0; *core && i < k; i++)
		if (!strcmp(snap->sources[i].core, core))
			return (uint16_t)i;
	return (uint16_t)k;
}

/* The buffers to decode: the one --ete-buffer names, else every buffer in
 * trace.ini's order. */
static enum trawl_status pick_buffers(struct ete_reader *r, const char *want,
				      struct trawl_error *err)
{
	const struct trawl_ete_snapshot *snap = r->snap;
	r->buf_next = 0;
	r->buf_end = snap->nbuffers;
	for (size_t i = 0; want && i < snap->nbuffers; i++)
		if (!strcmp(snap->buffers[i].name, want)) {
			r->buf_next = i;
			r->buf_end = i + 1;
			return TRAWL_OK;
		}
	if (!want && snap->nbuffers)
		return TRAWL_OK;
	if (!want) {
		enum trawl_status st = trawl_error_set(err, TRAWL_ERR_FORMAT, "no trace buffer");
		trawl_error_at(err, r->path, 0, 0, 0);
		return st;
	}
	/* a name the snapshot does not have is the user's mistake (exit 2):
	 * say which names it has */
	char names[256];
	trawl_ete_snapshot_buffer_names(snap, names, sizeof names);
	return trawl_error_set(err, TRAWL_ERR_USAGE, "'%s': no trace buffer named '%s' (%s)",
			       r->path, want, names);
}

static enum trawl_status open_snapshot(struct ete_reader *r, const char *path,
				       const struct trawl_reader_options *opt, struct trawl_error *err)
{
	enum trawl_status st = trawl_ete_snapshot_open(&r->snap, path, err);
	if (st)
		return st;
	r->img = r->snap->image;
	if (r->snap->nwarnings && r->warn) {
		struct trawl_error w;
		trawl_error_clear(&w);
		trawl_error_set(&w, TRAWL_ERR_FORMAT, "%s (%u problem%s in the snapshot)", r->snap->warning,
				r->snap->nwarnings, r->snap->nwarnings == 1 ? "" : "s");
		r->warn(r->warn_ctx, &w);
	}
	if (!r->snap->nsources)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s': no ETE or ETMv4 trace source in the "
				       "snapshot", path);
	return pick_buffers(r, opt ? opt->ete_buffer : NULL, err);
}

/* Snapshot buffer k in time order: a wrapped TRBE buffer (the state the
 * encoder records) is the memory [base, limit) with its oldest byte at
 * the write pointer; any other is read as it is. */
static enum trawl_status buffer_parts(struct ete_reader *r, const struct trawl_ete_buffer *b,
				      struct trawl_error *err)
{
	r->pdata[0] = b->data, r->plen[0] = b->len, r->pstart[0] = 0;
	r->pdata[1] = NULL, r->plen[1] = 0, r->pstart[1] = 0;
	r->part = 0, r->pos = 0;
	if (!b->trbe || !b->trbe_wrapped)
		return TRAWL_OK;
	const uint8_t *p1, *p2;
	size_t n1, n2;
	enum trawl_status st = trawl_ete_trbe_unwrap(b->data, b->len, b->trbe_base, b->trbe_limit,
						     b->trbe_ptr, 1, &p1, &n1, &p2, &n2, err);
	if (st) {
		trawl_error_at(err, r->name, 0, 0, 0);
		return st;
	}
	r->pdata[0] = p1, r->plen[0] = n1, r->pstart[0] = (uint64_t)(p1 - b->data);
	r->pdata[1] = p2, r->plen[1] = n2, r->pstart[1] = p2 ? (uint64_t)(p2 - b->data) : 0;
	return TRAWL_OK;
}

static enum trawl_status start_decoding(struct ete_reader *r, const char *format,
					struct trawl_error *err);

enum trawl_status ete_reader_next_buffer(struct ete_reader *r, struct trawl_error *err)
{
	const struct trawl_ete_snapshot *snap = r->snap;
	const struct trawl_ete_buffer *b = &snap->buffers[r->buf_next++];
	ete_streams_release(r);
	if (snap->nbuffers > 1)
		snprintf(r->name, sizeof r->name, "%s [buffer %s]", r->path, b->name);
	/* an unformatted buffer is the trace of the source [source_buffers]
	 * names for it, else the first */
	size_t k = b->source >= 0 ? (size_t)b->source : 0;
	r->one = &snap->sources[k].cfg;
	r->one_cpu = ete_source_cpu(snap, k);
	enum trawl_status st = buffer_parts(r, b, err);
	return st ? st : start_decoding(r, b->format, err);
}

/* A raw buffer's TRBE pointers (base, limit, write, wrapped in the
 * --ete-config file) put its two parts in time order. */
static enum trawl_status trbe_parts(struct ete_reader *r, const char *cfg, struct trawl_error *err)
{
	struct trawl_ete_trbe t = { 0, 0, 0, 1, 0 };
	enum trawl_status st = trawl_ete_trbe_load(cfg, &t, err);
	const unsigned ptrs = TRAWL_ETE_TRBE_BASE | TRAWL_ETE_TRBE_LIMIT | TRAWL_ETE_TRBE_WRITE;
	if (st || !(t.have & ptrs))
		return st;
	if ((t.have & ptrs) != ptrs) {
		st = trawl_error_set(err, TRAWL_ERR_USAGE, "TRBE pointers need base, limit and write");
		trawl_error_at(err, cfg, 0, 0, 0);
		return st;
	}
	const uint8_t *p1, *p2;
	size_t n1, n2;
	st = trawl_ete_trbe_unwrap(r->rawdata, r->plen[0], t.base, t.limit, t.write, t.wrapped, &p1, &n1,
				   &p2, &n2, err);
	if (st)
		return st;
	r->pdata[0] = p1, r->plen[0] = n1, r->pstart[0] = (uint64_t)(p1 - r->rawdata);
	r->pdata[1] = p2, r->plen[1] = n2, r->pstart[1] = p2 ? (uint64_t)(p2 - r->rawdata) : 0;
	return TRAWL_OK;
}

/* format= in the --ete-config file: how the buffer is framed (the words
 * of trace.ini, default source_data: TRBE writes unformatted trace). */
static enum trawl_status config_format(const char *cfg, char *format, size_t size,
				       struct trawl_error *err)
{
	struct trawl_ini *ini;
	snprintf(format, size, "source_data");
	enum trawl_status st = trawl_ini_load(&ini, cfg, err);
	if (st)
		return st;
	for (size_t i = 0; i < trawl_ini_count(ini); i++)
		if (!strcasecmp(trawl_ini_at(ini, i)->key, "format"))
			snprintf(format, size, "%s", trawl_ini_at(ini, i)->value);
	trawl_ini_destroy(ini);
	if (strcmp(format, "source_data") && strcmp(format, "coresight") &&
	    strcmp(format, "dstream_coresight") && strcmp(format, "tpiu")) {
		st = trawl_error_set(err, TRAWL_ERR_USAGE, "unknown format '%s' (source_data, "
				     "coresight, tpiu or dstream_coresight)", format);
		trawl_error_at(err, cfg, 0, 0, 0);
	}
	return st;
}

static enum trawl_status open_raw(struct ete_reader *r, const char *path,
				  const struct trawl_reader_options *opt, char *format, size_t fsize,
				  struct trawl_error *err)
{
	const char *cfg = opt ? opt->ete_config : NULL;
	if (!strcmp(path, "-") || !strcmp(path, "<stdin>"))
		return trawl_error_set(err, TRAWL_ERR_USAGE, "a raw ETE buffer must be a file, not "
				       "standard input");
	trawl_ete_config_default(&r->raw);
	enum trawl_status st = cfg ? trawl_ete_config_load(&r->raw, cfg, err) : TRAWL_OK;
	if (!st)
		st = trawl_ete_config_derive(&r->raw, err);
	if (!st && cfg)
		st = config_format(cfg, format, fsize, err);
	else
		snprintf(format, fsize, "source_data");
	if (!st)
		st = trawl_ete_image_create(&r->img, err);
	if (!st)
		st = trawl_file_read(path, &r->rawdata, &r->plen[0], err);
	if (st)
		return st;
	r->pdata[0] = r->rawdata;
	r->one = &r->raw;
	return cfg ? trbe_parts(r, cfg, err) : TRAWL_OK;
}

/* Deformatter for framed buffers, else the one stream the buffer is. */
static enum trawl_status start_decoding(struct ete_reader *r, const char *format,
					struct trawl_error *err)
{
	if (strcmp(format, "source_data") != 0) {
		int tpiu = !strcmp(format, "dstream_coresight") ? 2 : !strcmp(format, "tpiu") ? 1 : 0;
		r->one = NULL;
		return trawl_ete_deformatter_create(&r->df, tpiu, on_id_bytes, r, err);
	}
	r->single = ete_stream_get(r, r->one->trace_id, err);
	if (!r->single && !err->status)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s': no trace source", r->name);
	return r->single ? TRAWL_OK : err->status;
}

/* The reader's common start: name, warnings, batch size. */
static struct ete_reader *reader_new(const char *path, const struct trawl_reader_options *opt)
{
	struct ete_reader *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	snprintf(r->name, sizeof r->name, "%s", path);
	snprintf(r->path, sizeof r->path, "%s", path);
	r->warn = opt ? opt->warn : NULL;
	r->warn_ctx = opt ? opt->warn_ctx : NULL;
	r->limit = opt && opt->batch_events ? opt->batch_events : 4096;
	return r;
}

/* --ete-image files after the source's own images: where they overlap
 * those, the source's bytes are used (the first added wins), and a file
 * whose bytes differ there is warned about, not silently set aside. */
static enum trawl_status add_images(struct ete_reader *r, const struct trawl_reader_options *opt,
				    struct trawl_error *err)
{
	unsigned before = trawl_ete_image_conflicts(r->img, NULL, 0);
	for (size_t i = 0; opt && i < opt->ete_nimages; i++) {
		enum trawl_status st = trawl_ete_image_add_spec(r->img, opt->ete_images[i], err);
		if (st)
			return st;
	}
	if (trawl_ete_image_conflicts(r->img, NULL, 0) != before && r->warn) {
		struct trawl_error w;
		char what[320];
		trawl_ete_image_conflicts(r->img, what, sizeof what);
		trawl_error_clear(&w);
		trawl_error_set(&w, TRAWL_ERR_FORMAT, "%s: --ete-image: %s", r->path, what);
		r->warn(r->warn_ctx, &w);
	}
	return TRAWL_OK;
}

enum trawl_status ete_reader_open_perf(void **state, const char *path, const uint8_t *data,
				       size_t len, const struct trawl_reader_options *opt,
				       struct trawl_error *err)
{
	struct trawl_error local;
	if (!err)
		err = &local;
	trawl_error_clear(err);
	struct ete_reader *r = reader_new(path, opt);
	if (!r)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	enum trawl_status st = ete_perf_open(r, path, data, len, opt, err);
	if (!st)
		st = add_images(r, opt, err);
	if (st) {
		ete_reader_free(r);
		return st;
	}
	*state = r;
	return TRAWL_OK;
}

enum trawl_status ete_reader_open(void **state, const char *path, int is_dir,
				  const struct trawl_reader_options *opt, struct trawl_error *err)
{
	struct trawl_error local;
	if (!err)
		err = &local;
	trawl_error_clear(err);
	struct ete_reader *r = reader_new(path, opt);
	if (!r)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	char fmt[32];
	enum trawl_status st = is_dir ? open_snapshot(r, path, opt, err)
			       : open_raw(r, path, opt, fmt, sizeof fmt, err);
	if (!st)
		st = add_images(r, opt, err);
	if (!st)
		st = is_dir ? ete_reader_next_buffer(r, err) : start_decoding(r, fmt, err);
	if (st) {
		ete_reader_free(r);
		return st;
	}
	*state = r;
	return TRAWL_OK;
}
