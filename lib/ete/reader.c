/* trawl_reader backend for ETE / ETMv4 trace (docs/ete.md, "As a trace"):
 * an Arm snapshot directory, or a raw TRBE buffer asked for with
 * --ete-config / format ETE, decoded by lib/ete's packet and flow decoders
 * over the program image and handed out as the shared event model. The
 * events are those `trawl ete tarmac` writes as lines, one for one and in
 * the same order (instructions, exceptions with their handler address),
 * so an index of either answers alike; places with no image and
 * overflows are gaps. Nothing is text: the index says so (no-text flag). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/grow.h"
#include "core/reader-backend.h"
#include "ete/ete-reader.h"
#include "trawl/ete.h"
#include "trawl/file.h"

/* Buffer bytes fed to the decoders between checks of the batch size: a
 * loop's E atoms give ~20 instructions a byte, so 1024 bytes made batches
 * of up to ~10^5 events (MBs the index builder then reads from memory);
 * 128 keeps a batch near its limit (12% less CPU for trawl index). */
#define FEED_STEP 128
#define NO_OFFSET UINT64_MAX

static void put_warning(struct ete_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void vwarn(struct ete_reader *r, uint64_t off, const char *fmt, va_list ap)
{
	if (!r->warn)
		return;
	struct trawl_error w;
	trawl_error_clear(&w);
	w.status = TRAWL_ERR_CORRUPT;
	vsnprintf(w.message, sizeof w.message, fmt, ap);
	trawl_error_at(&w, r->name, 0, 0, off == NO_OFFSET ? 0 : off);
	w.has_offset = off != NO_OFFSET;
	r->warn(r->warn_ctx, &w);
}

static void put_warning(struct ete_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(r, off, fmt, ap);
	va_end(ap);
}

void ete_reader_damage(struct ete_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	r->stats.damaged++;
	va_start(ap, fmt);
	vwarn(r, off, fmt, ap);
	va_end(ap);
}

/* A new event at the end of the batch, zeroed but for its place. */
static struct trawl_event *push(struct ete_reader *r, uint16_t kind, uint16_t cpu, uint64_t off)
{
	if (!trawl_grow((void **)&r->ev, &r->cap, r->nev + 1, sizeof *r->ev) ||
	    !trawl_grow((void **)&r->names, &r->ncap, r->nev + 1, sizeof *r->names)) {
		r->nomem = 1;
		return NULL;
	}
	struct trawl_event *e = &r->ev[r->nev++];
	memset(e, 0, sizeof *e);
	e->seq = r->seq++;
	e->line = e->seq + 1; /* events numbered as an index numbers them */
	e->nlines = 1;
	e->kind = kind;
	e->cpu = cpu;
	e->offset = off;
	e->time = r->ts;
	e->time_unit = TRAWL_TIME_CLK;
	e->flags = TRAWL_EVF_HAS_TIME | TRAWL_EVF_NO_TEXT;
	r->stats.events++;
	return e;
}

static const char *mode_name(unsigned el, int ns)
{
	static const char *const names[4][2] = {
		{ "EL0t_s", "EL0t_n" }, { "EL1h_s", "EL1h_n" },
		{ "EL2h_s", "EL2h_n" }, { "EL3h_s", "EL3h_n" },
	};
	return names[el & 3][ns != 0];
}

/* One instruction event per instruction of the range, as `trawl ete
 * tarmac` writes them. */
static void put_range(struct ete_stream *s, const struct trawl_ete_elem *e, uint64_t off)
{
	struct ete_reader *r = s->r;
	const char *mode = mode_name(s->el, s->ns);
	uint64_t a = e->start, pc = a;
	uint32_t enc;
	unsigned size;
	for (uint32_t i = 0; (size = trawl_ete_range_next(r->img, e, i, &a, &enc)); i++, pc = a) {
		struct trawl_event *ev = push(r, TRAWL_EV_INSN, s->cpu, off);
		if (!ev)
			return;
		ev->flags |= TRAWL_EVF_HAS_ENCODING;
		ev->u.insn.pc = pc;
		ev->u.insn.encoding = enc;
		ev->u.insn.width = (uint8_t)size;
		ev->u.insn.iset = e->isa;
		ev->u.insn.el = s->el;
		ev->u.insn.mode.ptr = mode;
		ev->u.insn.mode.len = (uint32_t)strlen(mode);
	}
}

/* The exception held until the next range says where it went (the
 * handler's first instruction) or the end or another exception says it is
 * not known (then the preferred return address, as in the Tarmac). */
static void put_exception(struct ete_stream *s, uint64_t to)
{
	struct ete_reader *r = s->r;
	struct trawl_event *ev = push(r, TRAWL_EV_EXCEPTION, s->cpu, s->exc_off);
	s->exc_pending = 0;
	if (!ev)
		return;
	char *name = r->names[r->nev - 1];
	int n = trawl_ete_exception_text(s->exc_type, s->cfg.is_ete, s->exc_ret, name, ETE_NAME_MAX);
	ev->u.exc.name.len = n < 0 ? 0 : n >= ETE_NAME_MAX ? ETE_NAME_MAX - 1 : (uint32_t)n;
	ev->u.exc.target = to;
	ev->u.exc.ret_addr = s->exc_ret;
	ev->u.exc.number = s->exc_type;
	ev->flags |= trawl_exception_flags(name, ev->u.exc.name.len);
}

static int cpu_ran(const struct ete_reader *r, uint16_t cpu)
{
	return cpu >= ETE_READER_CPUS || (r->ran[cpu / 8] >> (cpu % 8) & 1);
}

static void set_ran(struct ete_reader *r, uint16_t cpu, int on)
{
	if (cpu >= ETE_READER_CPUS)
		return;
	r->ran[cpu / 8] = (uint8_t)((r->ran[cpu / 8] & ~(1u << (cpu % 8))) | (unsigned)!!on << (cpu % 8));
}

static void put_gap(struct ete_stream *s, uint64_t off, uint32_t reason)
{
	struct trawl_event *ev = push(s->r, TRAWL_EV_GAP, s->cpu, off);
	s->gap_pending = 0;
	set_ran(s->r, s->cpu, 0);
	if (ev)
		ev->u.gap.reason = reason;
}

/* A break the decoder knows of (trace was off, bytes lost, a new segment)
 * is a gap only where the core ran before it: at the start of a trace
 * there is nothing to break. `trawl ete tarmac` writes it by the same
 * rule (cmd-ete.c), so both paths give the same events. */
static void note_break(struct ete_stream *s, uint64_t off, uint32_t reason)
{
	if (s->gap_pending && s->gap_off != NO_OFFSET)
		return; /* the first break names the place (a new stream's has none) */
	s->gap_pending = 1;
	s->gap_off = off;
	s->gap_reason = reason;
}

static void flush_break(struct ete_stream *s, uint64_t off)
{
	if (s->gap_pending && cpu_ran(s->r, s->cpu))
		put_gap(s, s->gap_off == NO_OFFSET ? off : s->gap_off, s->gap_reason);
	s->gap_pending = 0;
}

/* Every element, in one switch so the order of the events (the Tarmac
 * path's: a held exception first, then what the element gives) is in one
 * place; the state events need (EL, security, time) is kept here too. */
static void on_elem(void *ctx, const struct trawl_ete_elem *e)
{
	struct ete_stream *s = ctx;
	struct ete_reader *r = s->r;
	uint64_t off = ete_stream_offset(s, e->offset);
	if (s->exc_pending && (e->type == TRAWL_ETE_EL_RANGE || e->type == TRAWL_ETE_EL_END ||
			       e->type == TRAWL_ETE_EL_EXCEPTION))
		put_exception(s, e->type == TRAWL_ETE_EL_RANGE ? e->start : s->exc_ret);
	switch (e->type) {
	case TRAWL_ETE_EL_RANGE:
		flush_break(s, off);
		put_range(s, e, off);
		set_ran(r, s->cpu, 1);
		break;
	case TRAWL_ETE_EL_TRACE_ON:
		note_break(s, off, TRAWL_GAP_TRACE_OFF);
		break;
	case TRAWL_ETE_EL_BAD:
	case TRAWL_ETE_EL_END:
		note_break(s, off, TRAWL_GAP_LOST);
		break;
	case TRAWL_ETE_EL_EXCEPTION:
		flush_break(s, off);
		s->exc_pending = 1;
		s->exc_ret = e->value;
		s->exc_type = e->count;
		s->exc_off = off;
		break;
	case TRAWL_ETE_EL_NACC:
		if (!r->nacc++) {
			r->nacc_off = off;
			r->nacc_addr = e->value;
			r->nacc_id = s->id;
		}
		put_gap(s, off, TRAWL_GAP_TRACE_OFF);
		break;
	case TRAWL_ETE_EL_OVERFLOW:
		r->stats.damaged++;
		put_warning(r, off, "trace ID 0x%02x: overflow: the trace unit lost trace here", s->id);
		put_gap(s, off, TRAWL_GAP_OVERFLOW);
		break;
	case TRAWL_ETE_EL_CONTEXT:
		s->el = e->ctx.el;
		s->ns = e->ctx.ns;
		break;
	case TRAWL_ETE_EL_TIMESTAMP:
		r->ts = e->value;
		break;
	default:
		break;
	}
}

/* Bad and unsupported packets are damage, named by their offset (the
 * words `trawl ete` uses), before the flow decoder sees them. */
static void on_packets(void *ctx, const struct trawl_ete_packet *pkts, size_t n)
{
	struct ete_stream *s = ctx;
	struct ete_reader *r = s->r;
	for (size_t i = 0; i < n; i++) {
		const struct trawl_ete_packet *p = &pkts[i];
		if (p->type != TRAWL_ETE_PKT_BAD && p->type != TRAWL_ETE_PKT_INCOMPLETE)
			continue;
		uint64_t off = ete_stream_offset(s, p->offset);
		r->stats.damaged++;
		if (p->type == TRAWL_ETE_PKT_BAD && p->count == TRAWL_ETE_BAD_CONFIG)
			put_warning(r, off, "unsupported packet (header 0x%02x, length %u) skipped; "
				    "instructions from the next Trace Info", p->header, p->len);
		else if (p->type == TRAWL_ETE_PKT_BAD)
			put_warning(r, off, "bad packet (header 0x%02x); resyncing at the next A-Sync",
				    p->header);
		else
			put_warning(r, off, "truncated packet (header 0x%02x): the buffer ends inside it",
				    p->header);
	}
	trawl_ete_flow_packets(s->flow, pkts, n);
}

void ete_deformatter_end(struct ete_reader *r, struct trawl_ete_deformatter *df,
			 uint64_t (*map)(const void *ctx, uint64_t off), const void *map_ctx)
{
	char msg[256];
	uint64_t at;
	trawl_ete_deformatter_finish(df);
	for (unsigned i = 0; trawl_ete_deformatter_damage(df, i, &at, msg, sizeof msg); i++)
		ete_reader_damage(r, map ? map(map_ctx, at) : at, "%s", msg);
}

struct ete_stream *ete_frame_stream(struct ete_reader *r, uint8_t id, uint64_t off)
{
	struct trawl_error e;
	trawl_error_clear(&e);
	struct ete_stream *s = ete_stream_get(r, id, &e);
	if (s || id >= ETE_READER_IDS)
		return s;
	if (e.status == TRAWL_ERR_NOMEM) {
		r->nomem = 1;
	} else if (!r->unknown_id[id]) {
		r->unknown_id[id] = 1;
		ete_reader_damage(r, off, "trace ID 0x%02x: no ETE or ETMv4 trace unit has this ID: its "
				  "bytes are not decoded (said once per ID)", id);
	}
	return NULL;
}

struct ete_stream *ete_stream_get(struct ete_reader *r, uint8_t id, struct trawl_error *err)
{
	if (id >= ETE_READER_IDS)
		return NULL;
	if (r->streams[id])
		return r->streams[id];
	const struct trawl_ete_config *c = r->one;
	uint16_t cpu = r->one_cpu;
	for (size_t k = 0; !c && r->snap && k < r->snap->nsources; k++)
		if (r->snap->sources[k].cfg.trace_id == id) {
			c = &r->snap->sources[k].cfg;
			cpu = ete_source_cpu(r->snap, k);
		}
	for (size_t k = 0; !c && k < r->npcpu; k++)
		if (r->pcpu[k].ok && r->pcpu[k].cfg.trace_id == id) {
			c = &r->pcpu[k].cfg;
			cpu = (uint16_t)r->pcpu[k].cpu; /* perf.data: the CPU it traced */
		}
	if (!c)
		return NULL; /* an ID with no ETE source (STM, ...) */
	struct ete_stream *s = calloc(1, sizeof *s);
	if (!s) {
		trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		return NULL;
	}
	s->r = r;
	s->id = id;
	s->cpu = cpu;
	s->cfg = *c;
	s->gap_pending = 1; /* a new stream of a core that ran: a new segment */
	s->gap_reason = TRAWL_GAP_LOST;
	s->gap_off = NO_OFFSET;
	if (trawl_ete_pkt_decoder_create(&s->pd, &s->cfg, on_packets, s, err) != TRAWL_OK ||
	    trawl_ete_flow_create(&s->flow, &s->cfg, r->img, on_elem, s, err) != TRAWL_OK) {
		trawl_ete_pkt_decoder_destroy(s->pd);
		free(s);
		return NULL;
	}
	r->streams[id] = s;
	return s;
}

/* End of a buffer: flush every decoder, then name what could not be
 * decoded: streams that never found an A-Sync, places with no image. */
static void finish_buffer(struct ete_reader *r)
{
	if (r->df)
		ete_deformatter_end(r, r->df, NULL, NULL);
	for (int i = 0; i < ETE_READER_IDS; i++)
		if (r->streams[i]) {
			trawl_ete_pkt_decoder_finish(r->streams[i]->pd);
			trawl_ete_flow_finish(r->streams[i]->flow);
		}
	for (int i = 0; i < ETE_READER_IDS; i++) {
		const struct ete_stream *s = r->streams[i];
		const struct trawl_ete_pkt_stats *ps = s ? trawl_ete_pkt_decoder_stats(s->pd) : NULL;
		if (ps && ps->bytes && !ps->by_type[TRAWL_ETE_PKT_ASYNC]) {
			r->stats.damaged++;
			put_warning(r, NO_OFFSET, "trace ID 0x%02x: no A-Sync in %" PRIu64 " bytes: nothing decoded "
				    "(wrong format, or a wrapped TRBE buffer without its pointers?)", s->id,
				    ps->bytes);
		} else if (ps && ps->lead_bytes && !r->perf) {
			/* perf.data segments name theirs (reader-perf.c) */
			r->stats.damaged++;
			put_warning(r, ete_stream_offset(s, 0), "trace ID 0x%02x: the first %" PRIu64
				    " of %" PRIu64 " bytes, before the first A-Sync, are not decoded "
				    "(a wrapped buffer: older trace was overwritten)", s->id,
				    ps->lead_bytes, ps->bytes);
		}
	}
	if (r->nacc) {
		r->stats.damaged += r->nacc;
		put_warning(r, NO_OFFSET, "%" PRIu64 " place%s with no program image (first: trace ID "
			    "0x%02x, offset %" PRIu64 ", address 0x%" PRIx64 "): the instructions there "
			    "are not decoded", r->nacc, r->nacc == 1 ? "" : "s", r->nacc_id, r->nacc_off,
			    r->nacc_addr);
		r->nacc = 0;
	}
}

/* After a buffer, the next one of the snapshot with fresh streams (one
 * that cannot be read is named and skipped), or the end. */
static void finish(struct ete_reader *r)
{
	if (r->perf)
		ete_perf_finish(r);
	finish_buffer(r);
	while (r->snap && r->buf_next < r->buf_end) {
		struct trawl_error e;
		trawl_error_clear(&e);
		if (ete_reader_next_buffer(r, &e) == TRAWL_OK)
			return;
		if (e.status == TRAWL_ERR_NOMEM) {
			r->nomem = 1;
			return;
		}
		r->stats.damaged++;
		if (r->warn)
			r->warn(r->warn_ctx, &e);
	}
	r->done = 1;
}

void ete_streams_release(struct ete_reader *r)
{
	for (int i = 0; i < ETE_READER_IDS; i++)
		if (r->streams[i]) {
			trawl_ete_flow_destroy(r->streams[i]->flow);
			trawl_ete_pkt_decoder_destroy(r->streams[i]->pd);
			free(r->streams[i]->segs.v);
			free(r->streams[i]);
			r->streams[i] = NULL;
		}
	trawl_ete_deformatter_destroy(r->df);
	r->df = NULL;
	r->single = NULL;
}

/* Feed the next step of the buffer (its parts in time order) to the
 * deformatter or the one stream; 0 when nothing is left. */
static int feed_step(struct ete_reader *r)
{
	if (r->perf)
		return ete_perf_feed_step(r);
	while (r->part < 2 && r->pos >= r->plen[r->part]) {
		r->part++;
		r->pos = 0;
	}
	if (r->part >= 2)
		return 0;
	size_t n = r->plen[r->part] - r->pos;
	if (n > FEED_STEP)
		n = FEED_STEP;
	const uint8_t *p = r->pdata[r->part] + r->pos;
	if (r->df)
		trawl_ete_deformatter_feed(r->df, p, n);
	else
		trawl_ete_pkt_decoder_feed(r->single->pd, p, n);
	r->pos += n;
	r->stats.bytes += n;
	return 1;
}

static enum trawl_status ete_next(void *state, struct trawl_event_batch *batch, struct trawl_error *err)
{
	struct ete_reader *r = state;
	r->nev = 0;
	while (!r->done && r->nev < r->limit && !r->nomem)
		if (!feed_step(r))
			finish(r);
	if (r->nomem)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory decoding '%s'", r->name);
	if (!r->nev)
		return TRAWL_END;
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == TRAWL_EV_EXCEPTION)
			r->ev[i].u.exc.name.ptr = r->names[i];
	batch->events = r->ev;
	batch->count = r->nev;
	batch->pool = (const uint8_t *)"";
	return TRAWL_OK;
}

static const struct trawl_reader_stats *ete_stats(const void *state)
{
	const struct ete_reader *r = state;
	return &r->stats;
}

static void ete_close(void *state)
{
	struct ete_reader *r = state;
	if (!r)
		return;
	ete_streams_release(r);
	ete_perf_release(r);
	if (!r->snap)
		trawl_ete_image_destroy(r->img);
	trawl_ete_snapshot_close(r->snap);
	free(r->rawdata);
	free(r->ev);
	free(r->names);
	free(r);
}

/* A perf.data is known by its PERFILE2 magic. A raw buffer has none: it
 * is read only when asked for (--format ete or --ete-config), never
 * guessed from its bytes. */
static int ete_probe(const char *data, size_t len)
{
	return trawl_perf_is_perf((const uint8_t *)data, len) ? 10 : 0;
}

static int ete_probe_dir(const char *path)
{
	return trawl_ete_snapshot_probe(path) ? 3 : 0;
}

static enum trawl_status ete_open_dir(void **state, const char *path,
				      const struct trawl_reader_options *opt, struct trawl_error *err)
{
	return ete_reader_open(state, path, 1, opt, err);
}

/* A perf.data that is not a plain file (a pipe, compressed) is read
 * whole first: its records point back and forth. */
static enum trawl_status slurp(struct trawl_input *in, const struct trawl_chunk *first,
			       uint8_t **data, size_t *len, struct trawl_error *err)
{
	size_t cap = 0;
	struct trawl_chunk c = *first;
	enum trawl_status st = TRAWL_OK;
	*data = NULL;
	*len = 0;
	do {
		if (!trawl_grow((void **)data, &cap, *len + c.len, 1))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading '%s'",
					       trawl_input_name(in));
		memcpy(*data + *len, c.data, c.len);
		*len += c.len;
	} while ((st = trawl_input_next(in, &c, err)) == TRAWL_OK);
	return st == TRAWL_END ? TRAWL_OK : st;
}

static enum trawl_status ete_open(void **state, struct trawl_input *in, const struct trawl_chunk *first,
				  const struct trawl_reader_options *opt, struct trawl_error *err)
{
	if (!first || !trawl_perf_is_perf((const uint8_t *)first->data, first->len))
		return ete_reader_open(state, trawl_input_name(in), 0, opt, err);
	const char *name = trawl_input_name(in);
	struct stat sb;
	uint8_t *data = NULL;
	size_t len = 0;
	enum trawl_status st = TRAWL_OK;
	if (trawl_input_compression(in) != TRAWL_COMPRESSION_NONE || strcmp(name, "-") == 0 ||
	    stat(name, &sb) != 0 || !S_ISREG(sb.st_mode))
		st = slurp(in, first, &data, &len, err);
	if (!st)
		st = ete_reader_open_perf(state, name, data, len, opt, err);
	free(data);
	return st;
}

static const struct trawl_ete_image *ete_image(const void *state)
{
	return ((const struct ete_reader *)state)->img;
}

const struct trawl_reader_backend trawl_ete_backend = {
	TRAWL_FORMAT_ETE, "ete", ete_probe, ete_open, ete_next, ete_stats, ete_close, ete_open_dir,
	ete_probe_dir, ete_image,
};

void ete_reader_free(struct ete_reader *r)
{
	ete_close(r);
}
