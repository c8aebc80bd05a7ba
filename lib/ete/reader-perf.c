/* A Linux perf.data with CoreSight ETM/ETE trace as a source of the ETE
 * reader backend (docs/perf.md, "As a trace"): the trace units' registers
 * come from AUXTRACE_INFO, the trace ID of each CPU from AUX_OUTPUT_HW_ID
 * or TRCTRACEIDR, the program image from the MMAP records
 * (perf-images.c). Each AUXTRACE chunk goes to its CPU in file order: raw
 * (TRBE) data straight to the stream of that CPU's trace ID, formatted
 * data through that CPU's own deformatter; a chunk that does not go on
 * from the one before starts its CPU's decoding over, as `trawl ete`
 * does. Events of a stream carry the CPU of its trace unit. What the
 * recording says was lost (AUX flags, missing AUX data, damaged records)
 * is damage, warned about with the record's file offset. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "ete/ete-reader.h"

/* Trace bytes fed to the decoders between checks of the batch size. */
#define PERF_FEED_STEP 1024
#define AUXTRACE_HEADER 48u

static int seg_add(struct ete_segs *s, uint64_t from, uint64_t file)
{
	if (s->n && s->v[s->n - 1].from == from) {
		s->v[s->n - 1].file = file; /* an empty chunk before: replaced */
		return 1;
	}
	if (!trawl_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
		return 0;
	s->v[s->n].from = from;
	s->v[s->n].file = file;
	s->n++;
	return 1;
}

/* The file offset of byte `off` of what was fed (last segment at or
 * before it; offsets only grow, so a bisection). */
static uint64_t seg_map(const struct ete_segs *s, uint64_t off)
{
	size_t lo = 0, hi = s->n;
	if (!s->n)
		return off;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].from <= off)
			lo = mid;
		else
			hi = mid;
	}
	return s->v[lo].file + (off >= s->v[lo].from ? off - s->v[lo].from : 0);
}

static uint64_t seg_map_fn(const void *segs, uint64_t off)
{
	return seg_map(segs, off);
}

uint64_t ete_perf_offset(const struct ete_stream *s, uint64_t off)
{
	return s->framed ? s->frame_off : seg_map(&s->segs, off);
}

/* Deformatted bytes of a CPU's frames: to the stream of their trace ID,
 * with the frame's place in the file. */
static void on_frame_bytes(void *ctx, uint8_t id, const uint8_t *data, size_t n, uint64_t off)
{
	struct ete_reader *r = ctx;
	uint64_t file = r->cur ? seg_map(&r->cur->segs, off) : off;
	struct ete_stream *s = ete_frame_stream(r, id, file);
	if (!s)
		return;
	s->framed = 1;
	s->frame_off = file;
	trawl_ete_pkt_decoder_feed(s->pd, data, n);
}

static struct ete_stream *stream_of(struct ete_reader *r, const struct ete_perf_cpu *pc)
{
	return r->streams[pc->cfg.trace_id < ETE_READER_IDS ? pc->cfg.trace_id : 0];
}

static uint64_t unsynced(struct ete_reader *r, const struct ete_perf_cpu *pc)
{
	const struct ete_stream *s = stream_of(r, pc);
	return s ? trawl_ete_pkt_decoder_stats(s->pd)->unsynced_bytes : 0;
}

static void on_loss(void *ctx, uint64_t off, const char *msg)
{
	ete_reader_damage(ctx, off, "%s", msg);
}

/* The trace units: one per ETM block, with the trace ID its CPU's trace
 * carries; ETMv3/PTM blocks are kept (their chunks are named and
 * skipped). */
static enum trawl_status make_units(struct ete_reader *r, struct trawl_error *err)
{
	const struct trawl_perf_file *pf = r->perf;
	if (!pf->have_etm_info || !pf->netm) {
		enum trawl_status st = trawl_error_set(err, TRAWL_ERR_FORMAT, "no CoreSight ETM "
						       "AUXTRACE_INFO record (not a cs_etm recording)");
		trawl_error_at(err, r->path, 0, 0, 0);
		return st;
	}
	if (!(r->pcpu = calloc(pf->netm, sizeof *r->pcpu)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	r->npcpu = pf->netm;
	for (size_t i = 0; i < pf->netm; i++) {
		struct ete_perf_cpu *pc = &r->pcpu[i];
		const struct trawl_perf_etm_cpu *c = &pf->etm[i];
		pc->cpu = c->cpu;
		pc->ok = c->cfg_ok;
		pc->cfg = c->cfg;
		int id = trawl_perf_trace_id(pf, (int32_t)c->cpu);
		pc->cfg.trace_id = (uint8_t)(id < 0 ? 0 : id);
	}
	return TRAWL_OK;
}

static void note_fn(void *ctx, const struct trawl_error *w)
{
	struct ete_reader *r = ctx;
	if (r->warn)
		r->warn(r->warn_ctx, w);
}

enum trawl_status ete_perf_open(struct ete_reader *r, const char *path, const uint8_t *data,
				size_t len, const struct trawl_reader_options *opt,
				struct trawl_error *err)
{
	enum trawl_status st = data ? trawl_perf_open_mem(&r->perf, data, len, path, err)
				    : trawl_perf_open(&r->perf, path, err);
	if (st)
		return st;
	struct trawl_perf_file *pf = r->perf;
	if (pf->nwarnings) {
		r->stats.damaged++;
		if (r->warn) {
			struct trawl_error w;
			trawl_error_clear(&w);
			trawl_error_set(&w, TRAWL_ERR_CORRUPT, "%s (%u problem%s in the recording)",
					pf->warning, pf->nwarnings, pf->nwarnings == 1 ? "" : "s");
			r->warn(r->warn_ctx, &w);
		}
	}
	if ((st = make_units(r, err)) || (st = trawl_ete_image_create(&r->img, err)))
		return st;
	trawl_perf_aux_losses(pf, on_loss, r);
	unsigned clashes = 0;
	trawl_perf_images_add(pf, r->img, opt ? opt->perf_symfs : NULL,
			      opt ? opt->perf_binary_dir : NULL, note_fn, r, &clashes);
	r->stats.damaged += clashes; /* said by the note; the exit status says it too */
	if (opt && opt->perf_kallsyms &&
	    (st = trawl_kallsyms_load(&r->ksyms, opt->perf_kallsyms, err)))
		return st;
	if (opt && opt->perf_vmlinux &&
	    (st = trawl_perf_kernel_image_add(pf, r->img, opt->perf_vmlinux, r->ksyms, note_fn, r, err)))
		return st;
	return TRAWL_OK;
}

/* End a CPU's segment: what was fed is flushed; trace before the first
 * sync point of a snapshot or of data after a gap is damage. With
 * `again`, the stream starts over unsynced, as at creation. */
static void end_segment(struct ete_reader *r, struct ete_perf_cpu *pc, int again)
{
	struct ete_stream *s = stream_of(r, pc);
	if (pc->df) {
		r->cur = pc;
		ete_deformatter_end(r, pc->df, seg_map_fn, &pc->segs);
		trawl_ete_deformatter_destroy(pc->df);
		pc->df = NULL;
	}
	if (s)
		trawl_ete_pkt_decoder_finish(s->pd);
	char msg[256];
	uint64_t off;
	if (trawl_perf_segment_lost(r->perf, &pc->seg, pc->cpu, unsynced(r, pc), msg, sizeof msg, &off))
		ete_reader_damage(r, off, "%s", msg);
	if (s && again) {
		trawl_ete_flow_finish(s->flow);
		trawl_ete_pkt_decoder_reset(s->pd, trawl_ete_pkt_decoder_stats(s->pd)->bytes);
	}
}

/* Chunk i's trace unit, or NULL (named, counted). */
static struct ete_perf_cpu *chunk_unit(struct ete_reader *r, const struct trawl_perf_auxtrace *c)
{
	char msg[256];
	const struct trawl_perf_etm_cpu *e = trawl_perf_chunk_unit(r->perf, c, msg, sizeof msg);
	if (!e) {
		ete_reader_damage(r, c->offset, "%s", msg);
		return NULL;
	}
	return &r->pcpu[e - r->perf->etm];
}

/* Start chunk i: its unit, a new segment when it does not go on from the
 * one before it, the decoder its bytes go to and where they are in the
 * file. 0: the chunk is skipped. */
static int start_chunk(struct ete_reader *r, size_t i)
{
	const struct trawl_perf_file *pf = r->perf;
	const struct trawl_perf_auxtrace *c = &pf->chunks[i];
	struct ete_perf_cpu *pc = chunk_unit(r, c);
	struct trawl_error e;
	trawl_error_clear(&e);
	r->cur = pc;
	r->cur_raw = NULL;
	if (!pc)
		return 0;
	struct trawl_perf_segment_step step;
	trawl_perf_segment_step(pf, i, pc->cpu, &step);
	if (step.missing)
		ete_reader_damage(r, c->offset, "%s", step.msg);
	if (step.end_first)
		end_segment(r, pc, 1);
	r->cur = pc;
	if (step.begins)
		trawl_perf_segment_begin(&pc->seg, i, &step, unsynced(r, pc));
	uint64_t file = c->offset + AUXTRACE_HEADER;
	if (trawl_perf_chunk_raw(pf, &pf->etm[pc - r->pcpu])) {
		struct ete_stream *s = ete_stream_get(r, pc->cfg.trace_id, &e);
		if (!s) {
			if (e.status == TRAWL_ERR_NOMEM)
				r->nomem = 1;
			else
				ete_reader_damage(r, c->offset, "AUXTRACE (cpu %u): trace ID 0x%02x: %s: "
						  "skipped", pc->cpu, pc->cfg.trace_id,
						  e.message[0] ? e.message : "no decoder for it");
			return 0;
		}
		if (!seg_add(&s->segs, trawl_ete_pkt_decoder_stats(s->pd)->bytes, file)) {
			r->nomem = 1;
			return 0;
		}
		r->cur_raw = s;
		return 1;
	}
	if (!pc->df && trawl_ete_deformatter_create(&pc->df, 0, on_frame_bytes, r, &e)) {
		r->nomem = 1;
		return 0;
	}
	if (!seg_add(&pc->segs, pc->fed, file)) {
		r->nomem = 1;
		return 0;
	}
	return 1;
}

int ete_perf_feed_step(struct ete_reader *r)
{
	const struct trawl_perf_file *pf = r->perf;
	while (r->chunk < pf->nchunks) {
		const struct trawl_perf_auxtrace *c = &pf->chunks[r->chunk];
		if (!r->chunk_started) {
			r->chunk_started = 1;
			r->pos = 0;
			if (!start_chunk(r, r->chunk))
				r->pos = c->avail; /* skipped */
		}
		if (r->pos < c->avail && !r->nomem)
			break;
		r->chunk++;
		r->chunk_started = 0;
	}
	if (r->chunk >= pf->nchunks || r->nomem)
		return 0;
	const struct trawl_perf_auxtrace *c = &pf->chunks[r->chunk];
	size_t n = c->avail - r->pos;
	if (n > PERF_FEED_STEP)
		n = PERF_FEED_STEP;
	if (r->cur_raw) {
		trawl_ete_pkt_decoder_feed(r->cur_raw->pd, c->data + r->pos, n);
	} else {
		trawl_ete_deformatter_feed(r->cur->df, c->data + r->pos, n);
		r->cur->fed += n;
	}
	r->pos += n;
	r->stats.bytes += n;
	return 1;
}

void ete_perf_finish(struct ete_reader *r)
{
	for (size_t k = 0; k < r->npcpu; k++)
		end_segment(r, &r->pcpu[k], 0);
}

void ete_perf_release(struct ete_reader *r)
{
	for (size_t k = 0; r->pcpu && k < r->npcpu; k++) {
		trawl_ete_deformatter_destroy(r->pcpu[k].df);
		free(r->pcpu[k].segs.v);
	}
	free(r->pcpu);
	r->pcpu = NULL;
	trawl_kallsyms_free(r->ksyms);
	r->ksyms = NULL;
	trawl_perf_close(r->perf);
	r->perf = NULL;
}
