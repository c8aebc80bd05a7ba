/* trawl ete: list packets, decode instruction flow, count, or write Tarmac
 * from ETE / ETMv4 trace (snapshot directories or raw buffers). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "trawl/disasm.h"
#include "trawl/ete.h"
#include "trawl/perf.h"

#include "perf-cli.h"

#define MAX_IDS 128

struct opts {
	const char *verb, *src, *buffer, *config, *out, *trbe_file, *symfs, *bindir;
	const char *vmlinux, *kallsyms;
	int id, formatted, tpiu, dstream, wrapped_set, wrapped;
	int have_base, have_limit, have_write;
	int trbe_from_snap;  /* the pointers came from a snapshot buffer's TRBE state */
	uint64_t base, limit, write;
	size_t chunk;
	struct { char name[32]; uint32_t value; } regs[16];
	int nregs;
	struct cli_list images, elfs;
};

struct stream;

struct run {
	struct opts *o;
	FILE *out;
	struct trawl_ete_image *img;
	struct stream *streams[MAX_IDS];
	struct trawl_ete_source *sources;
	size_t nsources;
	const struct trawl_ete_config *raw_cfg;
	uint64_t elems[32];
	uint64_t insns;
	uint64_t bad;
	uint64_t nacc_off, nacc_addr; /* the first no-image element */
	uint8_t nacc_id;
	uint64_t nacc_kernel, nacc_kaddr; /* of them in the kernel (VA bit 55), the first */
	struct trawl_kallsyms *ksyms;     /* perf.data: --kallsyms */
	struct trawl_disasm *dis;
	uint64_t ts;
	uint64_t seq;
	int ran;               /* tarmac: instructions written since the last gap */
	int perf;              /* the source is a perf.data */
	char label[4096 + 80]; /* SRC, or SRC [buffer NAME] when a snapshot has several */
	uint64_t fmt_base;   /* perf.data: formatted bytes of the CPU before its deformatter */
	uint8_t unknown_id[MAX_IDS]; /* formatted bytes came for this ID, which no
	                                trace unit of the source has: said once */
};

struct stream {
	struct run *run;
	uint8_t id;
	struct trawl_ete_config cfg;
	struct trawl_ete_pkt_decoder *pd;
	struct trawl_ete_flow *flow;
	struct trawl_ete_trans_tracker *trans; /* transactions, stats */
	uint64_t *map;       /* formatted input: stream offset -> input offset */
	size_t nmap, capmap;
	uint64_t split;      /* unwrapped TRBE: stream offsets below this ... */
	uint64_t first_off;  /* ... are file offsets from here; the rest from 0 */
	int unwrapped;
	int el, ns;
	int exc_pending;     /* tarmac: exception waiting for its handler address */
	uint64_t exc_ret;
	uint32_t exc_type;
	int gap_pending;     /* tarmac: a break waiting for the next instruction */
	uint32_t gap_reason; /* enum trawl_gap_reason */
};

static const char *cmd = "ete";

static uint64_t map_off(const struct stream *s, uint64_t off)
{
	if (s->unwrapped)
		return off < s->split ? s->first_off + off : off - s->split;
	if (!s->map)
		return off;
	return off < s->nmap ? s->map[off] : (s->nmap ? s->map[s->nmap - 1] : 0);
}

static void atoms_str(const struct trawl_ete_packet *p, char *buf)
{
	unsigned i;
	for (i = 0; i < p->natoms && i < 31; i++)
		buf[i] = ((p->atoms >> i) & 1) ? 'E' : 'N';
	buf[i] = 0;
}

/* `trawl ete packets`: one line per packet, offset, trace ID and type
 * first, then the fields of its type, then the fields any packet may carry
 * (atoms, address, context). One switch, so every type's columns are in one
 * place. */
static void print_packet(struct stream *s, const struct trawl_ete_packet *p)
{
	FILE *f = s->run->out;
	char a[40];
	fprintf(f, "%" PRIu64 "\t%02x\t%s", map_off(s, p->offset), s->id, trawl_ete_pkt_name(p->type));
	switch (p->type) {
	case TRAWL_ETE_PKT_NOTSYNC:
		fprintf(f, "\tbytes=%u", p->count);
		break;
	case TRAWL_ETE_PKT_BAD:
		fprintf(f, "\theader=0x%02x reason=%u", p->header, p->count);
		break;
	case TRAWL_ETE_PKT_INCOMPLETE:
		fprintf(f, "\theader=0x%02x bytes=%u", p->header, p->len);
		break;
	case TRAWL_ETE_PKT_TRACE_INFO:
		fprintf(f, "\tinfo=0x%" PRIx64 " key=%u spec=%u cyct=%u", p->value, p->tinfo_key,
			p->tinfo_spec, p->tinfo_cyct);
		break;
	case TRAWL_ETE_PKT_TIMESTAMP:
		fprintf(f, "\tts=0x%" PRIx64, p->value);
		if (p->flags & TRAWL_ETE_PF_HAS_CC)
			fprintf(f, " cc=%u", p->cc);
		break;
	case TRAWL_ETE_PKT_EXCEPT: case TRAWL_ETE_PKT_PE_RESET: case TRAWL_ETE_PKT_TRANS_FAIL:
		fprintf(f, "\ttype=0x%x (%s) interp=%u", p->count,
			trawl_ete_exception_name(p->count, s->cfg.is_ete), p->exc_addr_interp);
		break;
	case TRAWL_ETE_PKT_ITE:
		fprintf(f, "\tel=%u value=0x%" PRIx64, p->ite_el, p->value);
		break;
	case TRAWL_ETE_PKT_CCNT_F1: case TRAWL_ETE_PKT_CCNT_F2: case TRAWL_ETE_PKT_CCNT_F3:
		if (p->flags & TRAWL_ETE_PF_HAS_COMMIT)
			fprintf(f, "\tcommit=%u", p->commit);
		if (p->flags & TRAWL_ETE_PF_HAS_CC)
			fprintf(f, "\tcc=%u", p->cc);
		else
			fprintf(f, "\tcc=unknown");
		break;
	case TRAWL_ETE_PKT_COMMIT:
		fprintf(f, "\tcommit=%u", p->count);
		break;
	case TRAWL_ETE_PKT_CANCEL_F1: case TRAWL_ETE_PKT_CANCEL_F1_MISPRED:
	case TRAWL_ETE_PKT_CANCEL_F2: case TRAWL_ETE_PKT_CANCEL_F3: case TRAWL_ETE_PKT_MISPREDICT:
		fprintf(f, "\tcancel=%u", p->count);
		if (p->natoms) {
			atoms_str(p, a);
			fprintf(f, " atoms=%s", a);
		}
		break;
	case TRAWL_ETE_PKT_EVENT:
		fprintf(f, "\tevents=0x%x", p->count);
		break;
	case TRAWL_ETE_PKT_Q:
		if (p->flags & TRAWL_ETE_PF_HAS_COUNT)
			fprintf(f, "\tcount=%u", p->count);
		break;
	default:
		break;
	}
	if (p->type >= TRAWL_ETE_PKT_ATOM_F1) {
		atoms_str(p, a);
		fprintf(f, "\t%s", a);
	}
	if (p->flags & TRAWL_ETE_PF_HAS_ADDR)
		fprintf(f, "\taddr=0x%016" PRIx64 " is=%u", p->addr, p->is);
	if (p->flags & TRAWL_ETE_PF_HAS_CTX) {
		fprintf(f, "\tctx=EL%u %s %s", p->ctx.el, trawl_ete_security_name(&p->ctx),
			p->ctx.sf ? "64" : "32");
		if (p->ctx.has_vmid)
			fprintf(f, " vmid=0x%x", p->ctx.vmid);
		if (p->ctx.has_cid)
			fprintf(f, " ctxid=0x%x", p->ctx.cid);
	}
	fputc('\n', f);
}

static void on_packets(void *ctx, const struct trawl_ete_packet *pkts, size_t n)
{
	struct stream *s = ctx;
	for (size_t i = 0; i < n; i++) {
		if (pkts[i].type == TRAWL_ETE_PKT_BAD && pkts[i].count == TRAWL_ETE_BAD_CONFIG) {
			s->run->bad++;
			cli_warn(cmd, "%s: offset %" PRIu64 ": unsupported packet (header 0x%02x, length %u: "
				 "conditional or data trace, or not valid for this trace unit) skipped; "
				 "packets go on, instructions from the next Trace Info",
				 s->run->label, map_off(s, pkts[i].offset), pkts[i].header, pkts[i].len);
		} else if (pkts[i].type == TRAWL_ETE_PKT_OVERFLOW) {
			s->run->bad++;
			cli_warn(cmd, "%s: offset %" PRIu64 ": overflow: the trace unit lost trace here; "
				 "instructions from the next address", s->run->label, map_off(s, pkts[i].offset));
		} else if (pkts[i].type == TRAWL_ETE_PKT_BAD ||
			   pkts[i].type == TRAWL_ETE_PKT_INCOMPLETE) {
			s->run->bad++;
			cli_warn(cmd, "%s: offset %" PRIu64 ": %s packet (header 0x%02x); resyncing at the next A-Sync",
				 s->run->label, map_off(s, pkts[i].offset),
				 pkts[i].type == TRAWL_ETE_PKT_BAD ? "bad" : "truncated", pkts[i].header);
		}
	}
	if (!strcmp(s->run->o->verb, "packets"))
		for (size_t i = 0; i < n; i++)
			print_packet(s, &pkts[i]);
	if (s->flow)
		trawl_ete_flow_packets(s->flow, pkts, n);
}

static const char *cls_name(const struct trawl_ete_elem *e)
{
	switch (e->last_cls) {
	case TRAWL_ETE_INSN_BR: return e->last_flags & TRAWL_ETE_INSN_LINK ? "BR+link" : "BR";
	case TRAWL_ETE_INSN_IBR:
		return e->last_flags & TRAWL_ETE_INSN_ERET ? "iBR-eret"
		       : e->last_flags & TRAWL_ETE_INSN_RET ? "iBR-ret"
		       : e->last_flags & TRAWL_ETE_INSN_LINK ? "iBR+link" : "iBR";
	case TRAWL_ETE_INSN_ISB: return "ISB";
	case TRAWL_ETE_INSN_WFI: return "WFI";
	case TRAWL_ETE_INSN_TSTART: return "TSTART";
	default: return "---";
	}
}

static void write_tarmac_range(struct stream *s, const struct trawl_ete_elem *e)
{
	struct run *r = s->run;
	uint64_t a = e->start, pc = a;
	uint32_t enc;
	unsigned size;
	char dis[160], mode[16], line[320];
	snprintf(mode, sizeof mode, "EL%u%s_%s", s->el, s->el ? "h" : "t", s->ns ? "n" : "s");
	for (uint32_t i = 0; (size = trawl_ete_range_next(r->img, e, i, &a, &enc)); i++, pc = a) {
		trawl_disasm_text(r->dis, (enum trawl_iset)e->isa, pc, enc, size, dis, sizeof dis);
		int n = snprintf(line, sizeof line, "%" PRIu64 " clk IT (%" PRIu64 ")", r->ts, r->seq);
		char *end = trawl_tarmac_put_insn_tail(line + n, pc, enc, size,
						       (enum trawl_iset)e->isa, mode, dis, strlen(dis));
		fwrite(line, 1, (size_t)(end - line), r->out);
		r->seq++;
	}
}

/* A gap as the Tarmac reader reads it back (docs/tarmac.md) */
static void tarmac_gap(struct stream *s, uint64_t addr, const char *name)
{
	struct run *r = s->run;
	fprintf(r->out, "%" PRIu64 " clk E %016" PRIx64 " 00000000 %s\n", r->ts, addr, name);
	s->gap_pending = 0;
	r->ran = 0;
}

/* A break in the flow (Trace On after trace was off, a resync after a bad
 * packet, the end of a segment, a new buffer) is written as a gap line
 * before the next instruction, only where instructions came before it
 * since the last gap: the ETE reader's rule (lib/ete/reader.c), so both
 * paths give the same events. */
static void tarmac_break(struct stream *s, const struct trawl_ete_elem *e)
{
	if (e->type == TRAWL_ETE_EL_TRACE_ON || e->type == TRAWL_ETE_EL_BAD ||
	    e->type == TRAWL_ETE_EL_END) {
		if (!s->gap_pending || s->gap_pending == 2)
			s->gap_reason = e->type == TRAWL_ETE_EL_TRACE_ON ? TRAWL_GAP_TRACE_OFF
									 : TRAWL_GAP_LOST;
		s->gap_pending = 1;
	} else if (s->gap_pending && (e->type == TRAWL_ETE_EL_RANGE ||
				      e->type == TRAWL_ETE_EL_EXCEPTION)) {
		if (s->run->ran)
			tarmac_gap(s, 0, trawl_tarmac_gap_name(s->gap_reason));
		s->gap_pending = 0;
	}
}

/* `trawl ete tarmac`: IT lines for each range, E lines for exceptions,
 * missing image and gaps. Tarmac E lines give the address the exception
 * goes to, so an exception is held until the next range (the handler's
 * start) or the end says where it went. */
static void tarmac_elem(struct stream *s, const struct trawl_ete_elem *e)
{
	struct run *r = s->run;
	FILE *f = r->out;
	if (s->exc_pending && (e->type == TRAWL_ETE_EL_RANGE || e->type == TRAWL_ETE_EL_END ||
			       e->type == TRAWL_ETE_EL_EXCEPTION)) {
		uint64_t to = e->type == TRAWL_ETE_EL_RANGE ? e->start : s->exc_ret;
		char name[128];
		trawl_ete_exception_text(s->exc_type, s->cfg.is_ete, s->exc_ret, name, sizeof name);
		fprintf(f, "%" PRIu64 " clk E %016" PRIx64 " %08x %s\n", r->ts, to, s->exc_type, name);
		s->exc_pending = 0;
	}
	tarmac_break(s, e);
	if (e->type == TRAWL_ETE_EL_RANGE) {
		write_tarmac_range(s, e);
		r->ran = 1;
	} else if (e->type == TRAWL_ETE_EL_EXCEPTION) {
		s->exc_pending = 1;
		s->exc_ret = e->value;
		s->exc_type = e->count;
	} else if (e->type == TRAWL_ETE_EL_NACC)
		tarmac_gap(s, e->value, "NO_IMAGE");
	else if (e->type == TRAWL_ETE_EL_OVERFLOW)
		tarmac_gap(s, 0, trawl_tarmac_gap_name(TRAWL_GAP_OVERFLOW));
}

/* `trawl ete decode`: one line per element, offset, trace ID and name
 * first, then the fields of its type: one switch, so every type's columns
 * are in one place. */
static void print_elem(struct stream *s, const struct trawl_ete_elem *e)
{
	FILE *f = s->run->out;
	if (e->type == TRAWL_ETE_EL_END) {
		fprintf(f, "-\t%02x\t%s\n", s->id, trawl_ete_elem_name(e->type));
		return;
	}
	fprintf(f, "%" PRIu64 "\t%02x\t%s", map_off(s, e->offset), s->id, trawl_ete_elem_name(e->type));
	switch (e->type) {
	case TRAWL_ETE_EL_RANGE:
		fprintf(f, "\t0x%" PRIx64 "\t0x%" PRIx64 "\t%u\t%s\t%s\t%s\n", e->start, e->end, e->count,
			trawl_iset_name(e->isa), e->taken ? "E" : "N", cls_name(e));
		break;
	case TRAWL_ETE_EL_RANGE_NOPATH:
		fprintf(f, "\t0x%" PRIx64 "\t0x%" PRIx64 "\t%u\n", e->start, e->end, e->count);
		break;
	case TRAWL_ETE_EL_NACC:
		fprintf(f, "\tno image at 0x%" PRIx64 "\n", e->value);
		break;
	case TRAWL_ETE_EL_EXCEPTION:
		fprintf(f, "\tret=0x%" PRIx64 "\ttype=0x%02x\t%s\n", e->value, e->count,
			trawl_ete_exception_name(e->count, s->cfg.is_ete));
		break;
	case TRAWL_ETE_EL_CONTEXT:
		fprintf(f, "\tEL%u\t%s\t%s", e->ctx.el, trawl_ete_security_name(&e->ctx),
			e->ctx.sf ? "64" : "32");
		if (e->ctx.has_vmid)
			fprintf(f, "\tvmid=0x%x", e->ctx.vmid);
		if (e->ctx.has_cid)
			fprintf(f, "\tctxid=0x%x", e->ctx.cid);
		fputc('\n', f);
		break;
	case TRAWL_ETE_EL_TIMESTAMP:
		fprintf(f, "\t0x%" PRIx64 "\n", e->value);
		break;
	case TRAWL_ETE_EL_CYCLE_COUNT:
		if (e->value)
			fputs("\tunknown\n", f);
		else
			fprintf(f, "\t%u\n", e->count);
		break;
	case TRAWL_ETE_EL_EVENT:
		fprintf(f, "\t0x%x\n", e->count);
		break;
	case TRAWL_ETE_EL_INSTRUMENTATION:
		fprintf(f, "\tEL%u\t0x%" PRIx64 "\n", e->count, e->value);
		break;
	case TRAWL_ETE_EL_MEMTRANS:
		fprintf(f, "\t%s", e->count == TRAWL_ETE_TRANS_START ? "start"
			   : e->count == TRAWL_ETE_TRANS_COMMIT ? "commit"
			   : e->count == TRAWL_ETE_TRANS_FAIL ? "fail" : "init");
		if (e->count == TRAWL_ETE_TRANS_FAIL && (e->last_flags & 1))
			fprintf(f, "\tresume=0x%" PRIx64, e->end);
		fputc('\n', f);
		break;
	case TRAWL_ETE_EL_BAD:
		fprintf(f, "\theader=0x%02" PRIx64 "\n", e->value);
		break;
	default:
		fputc('\n', f);
	}
}

static void print_trans(void *ctx, const struct trawl_ete_trans *t);

/* Every element: the counts and the state (exception level, security,
 * time) the outputs need, then the verb's output. */
static void on_elem(void *ctx, const struct trawl_ete_elem *e)
{
	struct stream *s = ctx;
	struct run *r = s->run;
	if (e->type == TRAWL_ETE_EL_NACC && !r->elems[TRAWL_ETE_EL_NACC]) {
		r->nacc_off = map_off(s, e->offset);
		r->nacc_addr = e->value;
		r->nacc_id = s->id;
	}
	if (e->type == TRAWL_ETE_EL_NACC && (e->value >> 55 & 1) && !r->nacc_kernel++)
		r->nacc_kaddr = e->value;
	r->elems[e->type & 31]++;
	if (e->type == TRAWL_ETE_EL_RANGE)
		r->insns += e->count;
	if (e->type == TRAWL_ETE_EL_CONTEXT) {
		s->el = e->ctx.el;
		s->ns = e->ctx.ns;
	}
	if (e->type == TRAWL_ETE_EL_TIMESTAMP)
		r->ts = e->value;
	/* stats counts transactions only: its tracker starts with the first
	 * transaction element, so traces without any pay nothing */
	if (!s->trans && e->type == TRAWL_ETE_EL_MEMTRANS && !strcmp(r->o->verb, "stats") &&
	    trawl_ete_trans_create(&s->trans, r->img, print_trans, s, NULL) != TRAWL_OK)
		s->trans = NULL;
	if (s->trans)
		trawl_ete_trans_elem(s->trans, e);
	if (!strcmp(r->o->verb, "tarmac"))
		tarmac_elem(s, e);
	else if (!strcmp(r->o->verb, "decode"))
		print_elem(s, e);
}

static void put_pc(FILE *f, uint64_t pc)
{
	if (pc == TRAWL_ETE_TRANS_UNKNOWN)
		fputs("\t-", f);
	else
		fprintf(f, "\t0x%" PRIx64, pc);
}

/* `trawl ete transactions`: one line per outer transaction: offset, trace
 * ID, start and end PC ("-" when not traced), instructions inside, nesting
 * depth, outcome, then what else is known of it (one column). */
static void print_trans(void *ctx, const struct trawl_ete_trans *t)
{
	struct stream *s = ctx;
	FILE *f = s->run->out;
	static const char *const outcome[] = { "?", "commit", "fail", "open", "lost" };
	char more[256] = "";
	size_t n = 0;
	if (strcmp(s->run->o->verb, "transactions") != 0)
		return; /* stats: counted only */
	fprintf(f, "%" PRIu64 "\t%02x", map_off(s, t->start_off), s->id);
	put_pc(f, t->start_pc);
	put_pc(f, t->end_pc);
	fprintf(f, "\t%" PRIu64 "\t%u\t%s", t->insns, t->depth, t->outcome < 5 ? outcome[t->outcome] : "?");
	if (t->outcome == TRAWL_ETE_TRANS_FAILED) {
		n += (size_t)snprintf(more + n, sizeof more - n, "E1:E0=%u%u", (t->fail_form >> 1) & 1,
				      t->fail_form & 1);
		if (t->resume_pc != TRAWL_ETE_TRANS_UNKNOWN)
			n += (size_t)snprintf(more + n, sizeof more - n, " resume=0x%" PRIx64, t->resume_pc);
		if (t->reason == TRAWL_ETE_TRANS_TCANCEL)
			n += (size_t)snprintf(more + n, sizeof more - n, " reason=TCANCEL #%u (retry %u, code %u)",
					      t->cancel_imm, t->cancel_imm >> 15, t->cancel_imm & 0x7fff);
		else
			n += (size_t)snprintf(more + n, sizeof more - n, " reason=not traced");
	} else if (t->outcome == TRAWL_ETE_TRANS_OPEN) {
		n += (size_t)snprintf(more + n, sizeof more - n, "trace ended inside");
	} else if (t->outcome == TRAWL_ETE_TRANS_LOST) {
		n += (size_t)snprintf(more + n, sizeof more - n, "trace lost at offset %" PRIu64,
				      map_off(s, t->end_off));
	}
	if (t->started_before)
		snprintf(more + n, sizeof more - n, "%sbegan before the trace", n ? "; " : "");
	if (more[0])
		fprintf(f, "\t%s", more);
	fputc('\n', f);
}

static const struct trawl_ete_config *cfg_for(struct run *r, uint8_t id)
{
	if (r->raw_cfg)
		return r->raw_cfg;
	for (size_t i = 0; i < r->nsources; i++)
		if (r->sources[i].cfg.trace_id == id)
			return &r->sources[i].cfg;
	return NULL;
}

static struct stream *get_stream(struct run *r, uint8_t id, int mapped, struct trawl_error *err)
{
	if (id >= MAX_IDS)
		return NULL;
	if (r->streams[id])
		return r->streams[id];
	if (r->o->id >= 0 && r->o->id != id)
		return NULL;
	const struct trawl_ete_config *c = cfg_for(r, id);
	if (!c)
		return NULL; /* an ID with no ETE source (STM, ...) */
	struct stream *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->run = r;
	s->id = id;
	s->cfg = *c;
	s->el = 0;
	s->gap_pending = 2; /* a new stream: a new segment, if the core ran before */
	s->gap_reason = TRAWL_GAP_LOST;
	if (trawl_ete_pkt_decoder_create(&s->pd, &s->cfg, on_packets, s, err) != TRAWL_OK) {
		free(s);
		return NULL;
	}
	if (strcmp(r->o->verb, "packets") != 0 &&
	    trawl_ete_flow_create(&s->flow, &s->cfg, r->img, on_elem, s, err) != TRAWL_OK) {
		trawl_ete_pkt_decoder_destroy(s->pd);
		free(s);
		return NULL;
	}
	if (!strcmp(r->o->verb, "transactions") &&
	    trawl_ete_trans_create(&s->trans, r->img, print_trans, s, err) != TRAWL_OK) {
		trawl_ete_flow_destroy(s->flow);
		trawl_ete_pkt_decoder_destroy(s->pd);
		free(s);
		return NULL;
	}
	if (mapped)
		s->capmap = 1;
	r->streams[id] = s;
	return s;
}

static void on_id_bytes(void *ctx, uint8_t id, const uint8_t *data, size_t n, uint64_t off)
{
	struct run *r = ctx;
	struct stream *s = get_stream(r, id, 1, NULL);
	if (!s) {
		/* an ID no trace unit has: a corrupt ID byte in a frame, or a
		 * source trawl does not decode (STM); its bytes are lost to the
		 * decode, so said (once an ID), never dropped silently. --id
		 * leaves the others out on purpose. */
		if (id < MAX_IDS && !r->unknown_id[id] && (r->o->id < 0 || r->o->id == id)) {
			r->unknown_id[id] = 1;
			cli_warn(cmd, "%s: offset %" PRIu64 ": trace ID 0x%02x: no ETE or ETMv4 trace "
				 "unit has this ID: its bytes are not decoded (said once per ID)",
				 r->label, off + r->fmt_base, id);
			r->bad++;
		}
		return;
	}
	if (s->nmap + n > s->capmap || !s->map) {
		size_t nc = s->capmap < 4096 ? 4096 : s->capmap * 2;
		while (nc < s->nmap + n)
			nc *= 2;
		uint64_t *nm = realloc(s->map, nc * sizeof *nm);
		if (!nm)
			return;
		s->map = nm;
		s->capmap = nc;
	}
	off += r->fmt_base;
	for (size_t i = 0; i < n; i++)
		s->map[s->nmap++] = off;
	trawl_ete_pkt_decoder_feed(s->pd, data, n);
}

static void feed_raw(struct run *r, struct stream *s, const uint8_t *d, size_t n)
{
	size_t chunk = r->o->chunk ? r->o->chunk : n;
	for (size_t i = 0; i < n; i += chunk)
		trawl_ete_pkt_decoder_feed(s->pd, d + i, n - i < chunk ? n - i : chunk);
}

/* --reg NAME=VALUE, repeatable */
static int reg_option(void *ctx, const struct cli_option *opt, const char *s)
{
	struct opts *o = ctx;
	const char *eq = strchr(s, '=');
	uint64_t v;
	(void)opt;
	if (!eq || eq == s || (size_t)(eq - s) >= sizeof o->regs[0].name || o->nregs == 16 ||
	    !cli_parse_u64(eq + 1, &v) || v > UINT32_MAX)
		return cli_usage(cmd, "--reg wants NAME=VALUE (at most 16), got '%s'", s);
	snprintf(o->regs[o->nregs].name, sizeof o->regs[0].name, "%.*s", (int)(eq - s), s);
	o->regs[o->nregs++].value = (uint32_t)v;
	return 0;
}

static int wrapped_option(void *ctx, const struct cli_option *opt, const char *s)
{
	struct opts *o = ctx;
	(void)s;
	o->wrapped = strcmp(opt->name, "trbe-wrapped") == 0;
	o->wrapped_set = 1;
	return 0;
}

/* What run_ete decodes: the snapshot or raw file it came from, the bytes,
 * their framing and, after TRBE unwrapping, the two parts in time order. */
struct source {
	struct trawl_ete_snapshot *snap;
	struct trawl_ete_config raw;   /* raw buffer: its registers */
	uint8_t *rawdata;
	const uint8_t *data;
	size_t len;
	const char *format;            /* as trace.ini spells it */
	const uint8_t *p1, *p2;
	size_t n1, n2;
	struct trawl_perf_file *perf;  /* a perf.data recording */
	struct trawl_ete_source *psources;
};

/* The rule of the reader options (docs/ete.md, "As a trace", 1. Options)
 * for this command's own names: an option for another kind of source
 * would change nothing without a word, so it is a usage error naming the
 * option and the kind. The TRBE pointers are left out: a snapshot buffer
 * may take them too. */
static int check_kind(const struct opts *o, int is_dir, int is_perf)
{
	enum trawl_trace_kind k = is_dir ? TRAWL_KIND_ETE_SNAPSHOT : is_perf ? TRAWL_KIND_PERF
					 : TRAWL_KIND_ETE_BUFFER;
	const struct { const char *name; int given; enum trawl_trace_kind kind; const char *what; } t[] = {
		{ "buffer", o->buffer != NULL, TRAWL_KIND_ETE_SNAPSHOT, "a snapshot" },
		{ "config", o->config != NULL, TRAWL_KIND_ETE_BUFFER, "a raw buffer" },
		{ "reg", o->nregs > 0, TRAWL_KIND_ETE_BUFFER, "a raw buffer" },
		{ "formatted", o->formatted, TRAWL_KIND_ETE_BUFFER, "a raw buffer" },
		{ "dstream", o->dstream, TRAWL_KIND_ETE_BUFFER, "a raw buffer" },
		{ "image", o->images.n > 0, TRAWL_KIND_ETE_BUFFER, "a raw buffer" },
		{ "elf", o->elfs.n > 0, TRAWL_KIND_ETE_BUFFER, "a raw buffer" },
		{ "symfs", o->symfs != NULL, TRAWL_KIND_PERF, "a perf.data" },
		{ "binary-dir", o->bindir != NULL, TRAWL_KIND_PERF, "a perf.data" },
		{ "vmlinux", o->vmlinux != NULL, TRAWL_KIND_PERF, "a perf.data" },
		{ "kallsyms", o->kallsyms != NULL, TRAWL_KIND_PERF, "a perf.data" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].given && t[i].kind != k)
			return cli_usage(cmd, "--%s is for %s; '%s' is %s", t[i].name, t[i].what, o->src,
					 trawl_trace_kind_name(k));
	return EXIT_OK;
}

/* A snapshot directory brings its own registers, image and buffers; pick
 * the buffer (--buffer or the first). An unformatted buffer belongs to the
 * first trace source unless --id names another (decode_source finds it). */
static int open_snapshot(struct run *r, struct source *src, struct trawl_error *err)
{
	struct opts *o = r->o;
	if (trawl_ete_snapshot_open(&src->snap, o->src, err) != TRAWL_OK)
		return cli_report(cmd, err);
	struct trawl_ete_snapshot *snap = src->snap;
	if (snap->nwarnings)
		cli_warn(cmd, "%s (%u problem%s in the snapshot)", snap->warning, snap->nwarnings,
			 snap->nwarnings == 1 ? "" : "s");
	r->img = snap->image;
	r->sources = snap->sources;
	r->nsources = snap->nsources;
	return EXIT_OK;
}

/* Which buffers to decode: the one --buffer names, else all of them in
 * trace.ini's order, each with streams of its own (two buffers may hold
 * the same trace ID: two sessions of one trace unit). */
static int snapshot_buffers(struct run *r, const struct source *src, size_t *first, size_t *n)
{
	const struct trawl_ete_snapshot *snap = src->snap;
	const char *want = r->o->buffer;
	*first = 0;
	*n = snap->nbuffers;
	for (size_t i = 0; want && i < snap->nbuffers; i++)
		if (!strcmp(snap->buffers[i].name, want)) {
			*first = i;
			*n = 1;
			return EXIT_OK;
		}
	if (want) {
		char names[256];
		trawl_ete_snapshot_buffer_names(snap, names, sizeof names);
		return cli_usage(cmd, "%s: no trace buffer named '%s' (%s)", r->o->src, want, names);
	}
	if (!snap->nbuffers) {
		cli_error(cmd, "%s: no trace buffer", r->o->src);
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}

/* Point the run at snapshot buffer k. An unformatted buffer belongs to
 * the source [source_buffers] names for it (else the first), unless --id
 * names another (decode_source finds it). */
static void use_buffer(struct run *r, struct source *src, size_t k, int several)
{
	const struct trawl_ete_snapshot *snap = src->snap;
	const struct trawl_ete_buffer *b = &snap->buffers[k];
	src->data = b->data;
	src->len = b->len;
	src->format = b->format;
	struct opts *o = r->o;
	/* a wrapped TRBE buffer: its own pointers, unless the command line
	 * gives them; a buffer without TRBE state gets none from the one before */
	if (b->trbe && b->trbe_wrapped &&
	    (o->trbe_from_snap || !(o->have_base || o->have_limit || o->have_write || o->trbe_file))) {
		o->base = b->trbe_base;
		o->limit = b->trbe_limit;
		o->write = b->trbe_ptr;
		o->have_base = o->have_limit = o->have_write = 1;
		o->wrapped = o->wrapped_set = 1;
		o->trbe_from_snap = 1;
	} else if (o->trbe_from_snap) {
		o->have_base = o->have_limit = o->have_write = 0;
		o->wrapped = o->wrapped_set = 0;
		o->trbe_from_snap = 0;
	}
	r->raw_cfg = NULL;
	if (!strcmp(src->format, "source_data") && o->id < 0 && snap->nsources)
		r->raw_cfg = &snap->sources[b->source >= 0 ? b->source : 0].cfg;
	snprintf(r->label, sizeof r->label, several ? "%s [buffer %s]" : "%s", o->src, b->name);
	if (!several)
		return;
	if (!strcmp(o->verb, "stats"))
		fprintf(r->out, "buffer %s\n", b->name);
	else if (strcmp(o->verb, "tarmac") != 0)
		fprintf(r->out, "# buffer %s\n", b->name);
}

/* A raw buffer's registers: the typical ETE defaults, then --config, then
 * each --reg, in that order so the command line has the last word. */
static int raw_config(struct opts *o, struct trawl_ete_config *raw, struct trawl_error *err)
{
	trawl_ete_config_default(raw);
	if (o->config && trawl_ete_config_load(raw, o->config, err) != TRAWL_OK)
		return cli_report(cmd, err);
	for (int i = 0; i < o->nregs; i++)
		if (!trawl_ete_config_set_reg(raw, o->regs[i].name, o->regs[i].value))
			return cli_usage(cmd, "unknown register '%s'", o->regs[i].name);
	if (trawl_ete_config_derive(raw, err) != TRAWL_OK)
		return cli_report(cmd, err);
	return EXIT_OK;
}

/* A raw buffer's program image: --image ADDR=FILE pieces, then --elf
 * FILE[@BIAS] files, each refused with its own message. */
static int raw_images(struct run *r, struct trawl_error *err)
{
	struct opts *o = r->o;
	if (trawl_ete_image_create(&r->img, err) != TRAWL_OK)
		return cli_report(cmd, err);
	/* --image ADDR=FILE and --elf FILE[@BIAS] are the two forms of one spec */
	for (int i = 0; i < o->images.n; i++)
		if (!strchr(o->images.v[i], '='))
			return cli_usage(cmd, "--image wants ADDR=FILE");
	for (int k = 0; k < 2; k++) {
		const struct cli_list *l = k ? &o->elfs : &o->images;
		for (int i = 0; i < l->n; i++) {
			enum trawl_status st = trawl_ete_image_add_spec(r->img, l->v[i], err);
			if (st == TRAWL_ERR_USAGE)
				return cli_usage(cmd, "%s", err->message);
			if (st != TRAWL_OK)
				return cli_report(cmd, err);
		}
	}
	char what[320];
	if (trawl_ete_image_conflicts(r->img, what, sizeof what))
		cli_warn(cmd, "%s", what); /* the first file's bytes are used */
	return EXIT_OK;
}

/* A raw buffer file: registers and image from the options, the whole file
 * read into memory, its framing from --formatted/--tpiu/--dstream. */
static int open_raw(struct run *r, struct source *src, struct trawl_error *err)
{
	struct opts *o = r->o;
	int rc = raw_config(o, &src->raw, err);
	if (rc != EXIT_OK)
		return rc;
	r->raw_cfg = &src->raw;
	if ((rc = raw_images(r, err)) != EXIT_OK)
		return rc;
	if (trawl_file_read(o->src, &src->rawdata, &src->len, err) != TRAWL_OK)
		return cli_report(cmd, err);
	src->data = src->rawdata;
	src->format = o->dstream ? "dstream_coresight" : o->tpiu ? "tpiu"
		      : o->formatted ? "coresight" : "source_data";
	return EXIT_OK;
}

/* TRBE pointers (--trbe-file values over the --trbe-* options) turn the
 * buffer into two parts in time order; without pointers it is one part. */
static int trbe_parts(struct opts *o, struct source *src, struct trawl_error *err)
{
	/* a raw buffer's --config file may hold the pointers too ([trbe], as
	 * --ete-config of the other commands reads it): used unless the
	 * command line or --trbe-file gives them */
	const char *tf = o->trbe_file;
	if (!tf && !src->snap && o->config && !(o->have_base || o->have_limit || o->have_write))
		tf = o->config;
	if (tf) {
		struct trawl_ete_trbe t = { o->base, o->limit, o->write, o->wrapped, 0 };
		enum trawl_status st = trawl_ete_trbe_load(tf, &t, err);
		if (st == TRAWL_ERR_USAGE) {
			char buf[1024];
			trawl_error_format(err, buf, sizeof buf);
			return cli_usage(cmd, "%s", buf);
		}
		if (st != TRAWL_OK)
			return cli_report(cmd, err);
		o->base = t.base;
		o->limit = t.limit;
		o->write = t.write;
		o->wrapped = t.wrapped;
		o->have_base |= (t.have & TRAWL_ETE_TRBE_BASE) != 0;
		o->have_limit |= (t.have & TRAWL_ETE_TRBE_LIMIT) != 0;
		o->have_write |= (t.have & TRAWL_ETE_TRBE_WRITE) != 0;
		o->wrapped_set |= (t.have & TRAWL_ETE_TRBE_WRAPPED) != 0;
	}
	src->p1 = src->data;
	src->n1 = src->len;
	if (!(o->have_base || o->have_limit || o->have_write))
		return EXIT_OK;
	if (!(o->have_base && o->have_limit && o->have_write))
		return cli_usage(cmd, "TRBE buffers need base, limit and write pointer");
	if (trawl_ete_trbe_unwrap(src->data, src->len, o->base, o->limit, o->write,
				  o->wrapped_set ? o->wrapped : 1, &src->p1, &src->n1, &src->p2,
				  &src->n2, err) != TRAWL_OK)
		return cli_report(cmd, err);
	return EXIT_OK;
}

/* What the recording says was lost (lib/ete/perf-aux.c): each counts. */
static void on_loss(void *ctx, uint64_t off, const char *msg)
{
	struct run *r = ctx;
	cli_warn(cmd, "%s: offset %" PRIu64 ": %s", r->o->src, off, msg);
	r->bad++;
}

/* A perf.data brings the trace units' registers (AUXTRACE_INFO), the
 * trace ID of each CPU and the mapped files that make the image. */
static int open_perf(struct run *r, struct source *src, struct trawl_error *err)
{
	struct opts *o = r->o;
	if (trawl_perf_open(&src->perf, o->src, err) != TRAWL_OK)
		return cli_report(cmd, err);
	struct trawl_perf_file *pf = src->perf;
	r->perf = 1;
	if (pf->nwarnings) {
		cli_warn(cmd, "%s (%u problem%s in the recording)", pf->warning, pf->nwarnings,
			 pf->nwarnings == 1 ? "" : "s");
		r->bad++;
	}
	if (!pf->have_etm_info || !pf->netm) {
		cli_error(cmd, "%s: no CoreSight ETM AUXTRACE_INFO record (not a cs_etm recording)",
			  o->src);
		return EXIT_BAD_INPUT;
	}
	trawl_perf_aux_losses(pf, on_loss, r);
	if (!(src->psources = calloc(pf->netm, sizeof *src->psources)))
		return cli_report(cmd, err);
	for (size_t i = 0; i < pf->netm; i++) {
		const struct trawl_perf_etm_cpu *c = &pf->etm[i];
		if (!c->cfg_ok)
			continue; /* ETMv3/PTM: no decoder here; its chunks are reported */
		struct trawl_ete_source *ts = &src->psources[r->nsources++];
		snprintf(ts->name, sizeof ts->name, "cpu%u", c->cpu);
		ts->cfg = c->cfg;
		int id = trawl_perf_trace_id(pf, (int32_t)c->cpu);
		ts->cfg.trace_id = (uint8_t)(id < 0 ? 0 : id);
	}
	r->sources = src->psources;
	if (trawl_ete_image_create(&r->img, err) != TRAWL_OK)
		return cli_report(cmd, err);
	unsigned clashes = 0;
	perf_cli_images(pf, r->img, o->symfs, o->bindir, cmd, &clashes);
	r->bad += clashes != 0; /* the note says where: the decode may be wrong there */
	if (o->kallsyms && trawl_kallsyms_load(&r->ksyms, o->kallsyms, err) != TRAWL_OK)
		return cli_report(cmd, err);
	if (o->vmlinux) {
		int rc = perf_cli_kernel_image(pf, r->img, o->vmlinux, r->ksyms, cmd);
		if (rc != EXIT_OK)
			return rc;
	}
	src->format = "perf";
	return EXIT_OK;
}

/* A perf.data CPU's decoding state: its deformatter (formatted data), the
 * formatted bytes fed in all and before it (offsets go on across
 * restarts), and the segment being decoded (lib/ete/perf-segment.c). */
struct perf_cpu {
	struct trawl_ete_deformatter *df;
	uint64_t fed, base;
	struct trawl_perf_segment seg;
};

static uint64_t unsynced(struct run *r, int id)
{
	struct stream *s = id >= 0 && id < MAX_IDS ? r->streams[id] : NULL;
	return s ? trawl_ete_pkt_decoder_stats(s->pd)->unsynced_bytes : 0;
}

/* The end of formatted bytes: what the deformatter could not decode
 * (trawl_ete_deformatter_damage) is said, and counted as lost. */
static void deformatter_done(struct run *r, struct trawl_ete_deformatter *df)
{
	char msg[256];
	uint64_t at;
	trawl_ete_deformatter_finish(df);
	for (unsigned i = 0; trawl_ete_deformatter_damage(df, i, &at, msg, sizeof msg); i++) {
		cli_warn(cmd, "%s: offset %" PRIu64 ": %s", r->label, r->fmt_base + at, msg);
		r->bad++;
	}
	trawl_ete_deformatter_destroy(df);
}

/* End a CPU's segment: the bytes fed are flushed; trace before the first
 * sync point of a snapshot or of data after a gap is named as lost. With
 * `again`, the stream starts over unsynced, as at creation. */
static void end_segment(struct run *r, const struct trawl_perf_file *pf, struct perf_cpu *pc,
			int32_t cpu, int again)
{
	int id = trawl_perf_trace_id(pf, cpu);
	struct stream *s = id >= 0 && id < MAX_IDS ? r->streams[id] : NULL;
	if (pc->df) {
		r->fmt_base = pc->base;
		deformatter_done(r, pc->df);
		pc->df = NULL;
	}
	if (s)
		trawl_ete_pkt_decoder_finish(s->pd);
	char msg[256];
	uint64_t off;
	if (trawl_perf_segment_lost(pf, &pc->seg, (uint32_t)cpu, unsynced(r, id), msg, sizeof msg,
				    &off)) {
		cli_warn(cmd, "%s: offset %" PRIu64 ": %s", r->o->src, off, msg);
		r->bad++;
	}
	if (s && again) {
		if (s->flow)
			trawl_ete_flow_finish(s->flow);
		trawl_ete_pkt_decoder_reset(s->pd, trawl_ete_pkt_decoder_stats(s->pd)->bytes);
	}
}

/* Chunk i starts a segment of its CPU when it does not go on from the
 * one before it: a snapshot, or bytes missing in between (said here). */
static void start_segment(struct run *r, const struct trawl_perf_file *pf, struct perf_cpu *pc,
			  int32_t cpu, size_t i)
{
	struct trawl_perf_segment_step step;
	trawl_perf_segment_step(pf, i, (uint32_t)cpu, &step);
	if (step.missing) {
		cli_warn(cmd, "%s: offset %" PRIu64 ": %s", r->o->src, pf->chunks[i].offset, step.msg);
		r->bad++;
	}
	if (step.end_first)
		end_segment(r, pf, pc, cpu, 1);
	if (step.begins)
		trawl_perf_segment_begin(&pc->seg, i, &step, unsynced(r, trawl_perf_trace_id(pf, cpu)));
}

/* The trace unit a chunk's bytes came from, or NULL (warned, counted). */
static const struct trawl_perf_etm_cpu *chunk_unit(struct run *r, const struct trawl_perf_file *pf,
						   const struct trawl_perf_auxtrace *c)
{
	char msg[256];
	const struct trawl_perf_etm_cpu *e = trawl_perf_chunk_unit(pf, c, msg, sizeof msg);
	if (!e) {
		cli_warn(cmd, "%s: offset %" PRIu64 ": %s", r->o->src, c->offset, msg);
		r->bad++;
	}
	return e;
}

/* Each AUXTRACE chunk to its CPU: raw data (TRBE) straight to that CPU's
 * trace-ID stream, formatted data through that CPU's own deformatter
 * (frames carry the IDs). Streams stay apart by trace ID; a chunk that
 * does not go on from the one before starts its CPU's decoding over. */
static int decode_perf(struct run *r, struct source *src, struct trawl_error *err)
{
	const struct trawl_perf_file *pf = src->perf;
	struct perf_cpu *pcs = calloc(pf->netm + 1, sizeof *pcs);
	int rc = pcs ? EXIT_OK : cli_report(cmd, err);
	for (size_t i = 0; rc == EXIT_OK && i < pf->nchunks; i++) {
		const struct trawl_perf_auxtrace *c = &pf->chunks[i];
		const struct trawl_perf_etm_cpu *e = chunk_unit(r, pf, c);
		if (!e)
			continue;
		struct perf_cpu *pc = &pcs[e - pf->etm];
		int32_t cpu = (int32_t)e->cpu;
		start_segment(r, pf, pc, cpu, i);
		if (trawl_perf_chunk_raw(pf, e)) {
			struct stream *s = get_stream(r, (uint8_t)trawl_perf_trace_id(pf, cpu), 0, err);
			if (s)
				feed_raw(r, s, c->data, c->avail);
			continue;
		}
		if (!pc->df) {
			if (trawl_ete_deformatter_create(&pc->df, 0, on_id_bytes, r, err) != TRAWL_OK) {
				rc = cli_report(cmd, err);
				break;
			}
			pc->base = pc->fed;
		}
		r->fmt_base = pc->base;
		trawl_ete_deformatter_feed(pc->df, c->data, c->avail);
		pc->fed += c->avail;
	}
	for (size_t k = 0; pcs && k < pf->netm; k++)
		end_segment(r, pf, &pcs[k], (int32_t)pf->etm[k].cpu, 0);
	free(pcs);
	return rc;
}

/* Feed the bytes to the decoders. Unformatted data is one stream (the raw
 * registers', or the snapshot source --id names), whose offsets map back
 * across the TRBE wrap; formatted data goes through the deformatter, which
 * makes a stream per trace ID as IDs appear (on_id_bytes). */
static int decode_source(struct run *r, struct source *src, struct trawl_error *err)
{
	struct opts *o = r->o;
	if (src->perf)
		return decode_perf(r, src, err);
	if (!strcmp(src->format, "source_data")) {
		uint8_t id = r->raw_cfg ? r->raw_cfg->trace_id : 0;
		if (!r->raw_cfg && src->snap) {
			const struct trawl_ete_source *ts = trawl_ete_snapshot_source(src->snap, o->id);
			if (!ts) {
				cli_error(cmd, "%s: no trace source with ID %d", o->src, o->id);
				return EXIT_BAD_INPUT;
			}
			r->raw_cfg = &ts->cfg;
			id = ts->cfg.trace_id;
		}
		struct stream *s = get_stream(r, id, 0, err);
		if (!s)
			return cli_report(cmd, err);
		if (src->n2) {
			s->unwrapped = 1;
			s->split = src->n1;
			s->first_off = (uint64_t)(src->p1 - src->data);
		}
		feed_raw(r, s, src->p1, src->n1);
		if (src->n2)
			feed_raw(r, s, src->p2, src->n2);
		return EXIT_OK;
	}
	int tpiu = !strcmp(src->format, "dstream_coresight") ? 2 : o->tpiu ? 1 : 0;
	struct trawl_ete_deformatter *df;
	if (trawl_ete_deformatter_create(&df, tpiu, on_id_bytes, r, err) != TRAWL_OK)
		return cli_report(cmd, err);
	trawl_ete_deformatter_feed(df, src->p1, src->n1);
	if (src->n2)
		trawl_ete_deformatter_feed(df, src->p2, src->n2);
	deformatter_done(r, df);
	return EXIT_OK;
}

/* Kernel addresses with no image: said apart from the others, named by
 * --kallsyms when given (the counts and exit status stay with them). */
static void kernel_nacc(struct run *r)
{
	char name[160] = "";
	uint64_t start = 0;
	const char *sym = r->ksyms ? trawl_kallsyms_at(r->ksyms, r->nacc_kaddr, &start) : NULL;
	if (sym)
		snprintf(name, sizeof name, " (%s+0x%" PRIx64 ")", sym, r->nacc_kaddr - start);
	cli_warn(cmd, "%s: %" PRIu64 " of the places with no program image are kernel addresses "
		 "(first: 0x%" PRIx64 "%s): give --vmlinux FILE to decode them%s", r->o->src,
		 r->nacc_kernel, r->nacc_kaddr, name, r->ksyms ? "" : ", --kallsyms FILE to name them");
}

/* End every stream (cut packets, pending flow), then name each stream that
 * never synchronised: its bytes were all lost, so the run counts as bad. */
static void finish_streams(struct run *r)
{
	for (int i = 0; i < MAX_IDS; i++) {
		struct stream *s = r->streams[i];
		if (!s)
			continue;
		trawl_ete_pkt_decoder_finish(s->pd);
		if (s->flow)
			trawl_ete_flow_finish(s->flow);
	}
	for (int i = 0; i < MAX_IDS; i++) {
		struct stream *s = r->streams[i];
		if (!s)
			continue;
		const struct trawl_ete_pkt_stats *ps = trawl_ete_pkt_decoder_stats(s->pd);
		if (ps->bytes && !ps->by_type[TRAWL_ETE_PKT_ASYNC]) {
			cli_warn(cmd, "%s: trace ID 0x%02x: no A-Sync in %" PRIu64 " bytes: nothing decoded "
				 "(wrong format, or a wrapped TRBE buffer without --trbe-* pointers?)",
				 r->label, s->id, ps->bytes);
			r->bad++;
		} else if (ps->lead_bytes && !r->perf) {
			/* perf.data segments name theirs (end_segment) */
			cli_warn(cmd, "%s: offset %" PRIu64 ": trace ID 0x%02x: the first %" PRIu64 " of %"
				 PRIu64 " bytes, before the first A-Sync, are not decoded (a wrapped "
				 "buffer: older trace was overwritten)", r->label, map_off(s, 0), s->id,
				 ps->lead_bytes, ps->bytes);
			r->bad++;
		}
	}
	/* no image: the instructions there ran but could not be decoded */
	uint64_t n = r->elems[TRAWL_ETE_EL_NACC];
	if (r->nacc_kernel)
		kernel_nacc(r);
	if (n) {
		cli_warn(cmd, "%s: %" PRIu64 " place%s with no program image (first: trace ID 0x%02x, "
			 "offset %" PRIu64 ", address 0x%" PRIx64 "): the instructions there are not decoded",
			 r->label, n, n == 1 ? "" : "s", r->nacc_id, r->nacc_off, r->nacc_addr);
		r->bad++;
	}
}

/* Transactions: how each ended, and the commit rate over those whose
 * outcome the trace shows (open and lost ones are not in it). */
static void print_trans_stats(FILE *f, const struct trawl_ete_trans_stats *t)
{
	uint64_t n = t->committed + t->failed + t->open + t->lost, known = t->committed + t->failed;
	if (!n)
		return;
	fprintf(f, "  transactions     %" PRIu64 " (%" PRIu64 " committed, %" PRIu64 " failed, %" PRIu64
		" open at the end, %" PRIu64 " lost)\n", n, t->committed, t->failed, t->open, t->lost);
	if (known)
		fprintf(f, "  commit rate      %.1f%% (%" PRIu64 " of %" PRIu64 ")\n",
			100.0 * (double)t->committed / (double)known, t->committed, known);
}

/* `trawl ete stats`: per trace ID, the packet decoder's counts, then the
 * flow decoder's when there is one. */
static void print_stats(struct run *r)
{
	FILE *f = r->out;
	for (int i = 0; i < MAX_IDS; i++) {
		struct stream *s = r->streams[i];
		if (!s)
			continue;
		const struct trawl_ete_pkt_stats *ps = trawl_ete_pkt_decoder_stats(s->pd);
		fprintf(f, "trace ID 0x%02x (%s)\n", s->id, s->cfg.is_ete ? "ETE" : "ETMv4");
		fprintf(f, "  bytes            %" PRIu64 "\n", ps->bytes);
		fprintf(f, "  unsynced bytes   %" PRIu64 "\n", ps->unsynced_bytes);
		fprintf(f, "  packets          %" PRIu64 "\n", ps->packets);
		fprintf(f, "  bad packets      %" PRIu64 "\n", ps->bad);
		fprintf(f, "  atoms E / N      %" PRIu64 " / %" PRIu64 "\n", ps->atoms_e, ps->atoms_n);
		for (int t = 0; t < TRAWL_ETE_PKT_COUNT_; t++)
			if (ps->by_type[t])
				fprintf(f, "  %-20s %" PRIu64 "\n", trawl_ete_pkt_name(t), ps->by_type[t]);
		if (s->flow) {
			const struct trawl_ete_flow_stats *fs = trawl_ete_flow_stats(s->flow);
			fprintf(f, "  ranges           %" PRIu64 "\n", fs->ranges);
			fprintf(f, "  instructions     %" PRIu64 "\n", fs->instructions);
			fprintf(f, "  exceptions       %" PRIu64 "\n", fs->exceptions);
			fprintf(f, "  no-image         %" PRIu64 "\n", fs->nacc);
			fprintf(f, "  block cache      %" PRIu64 " hits, %" PRIu64 " misses\n",
				fs->block_hits, fs->block_misses);
		}
		if (s->trans)
			print_trans_stats(f, trawl_ete_trans_stats(s->trans));
	}
}

/* The streams of one buffer and their counts, so the next buffer starts
 * afresh. */
static void release_streams(struct run *r)
{
	for (int i = 0; i < MAX_IDS; i++) {
		struct stream *s = r->streams[i];
		if (!s)
			continue;
		trawl_ete_trans_destroy(s->trans);
		trawl_ete_flow_destroy(s->flow);
		trawl_ete_pkt_decoder_destroy(s->pd);
		free(s->map);
		free(s);
		r->streams[i] = NULL;
	}
	memset(r->elems, 0, sizeof r->elems);
	r->insns = 0;
}

/* Everything run_ete may have made, whichever step it stopped at (the
 * image belongs to the snapshot when there is one). */
static void release(struct run *r, struct source *src)
{
	release_streams(r);
	trawl_disasm_destroy(r->dis);
	if (!src->snap)
		trawl_ete_image_destroy(r->img);
	trawl_ete_snapshot_close(src->snap);
	trawl_perf_close(src->perf);
	trawl_kallsyms_free(r->ksyms);
	free(src->psources);
	free(src->rawdata);
	if (r->out && r->out != stdout)
		fclose(r->out);
}

/* open the source, unwrap TRBE, decode, report: each step returns an exit
 * status and the first that is not EXIT_OK ends the run (release cleans up
 * after any of them). Output is written as decoding goes (the callbacks);
 * only stats waits for the end. */
static int run_ete(struct opts *o)
{
	struct trawl_error err;
	struct run r;
	struct source src;
	struct stat sb;
	size_t first = 0, nbuf = 1;
	int rc;
	memset(&r, 0, sizeof r);
	memset(&src, 0, sizeof src);
	trawl_error_clear(&err);
	r.o = o;
	r.out = stdout;
	if (o->out && strcmp(o->out, "-") != 0 && !(r.out = fopen(o->out, "w"))) {
		cli_error(cmd, "cannot open '%s': %s", o->out, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	if (stat(o->src, &sb) != 0) {
		cli_error(cmd, "cannot open '%s': %s", o->src, strerror(errno));
		rc = EXIT_BAD_INPUT;
	} else if ((rc = check_kind(o, S_ISDIR(sb.st_mode), perf_cli_is_perf(o->src)))) {
		/* said */
	} else {
		rc = S_ISDIR(sb.st_mode) ? open_snapshot(&r, &src, &err)
		     : perf_cli_is_perf(o->src) ? open_perf(&r, &src, &err) : open_raw(&r, &src, &err);
	}
	snprintf(r.label, sizeof r.label, "%s", o->src);
	if (rc == EXIT_OK && src.snap)
		rc = snapshot_buffers(&r, &src, &first, &nbuf);
	if (rc == EXIT_OK && !strcmp(o->verb, "tarmac") && trawl_disasm_create(&r.dis, &err) != TRAWL_OK) {
		/* the trace is still right without the text: say so once */
		char buf[512];
		trawl_error_format(&err, buf, sizeof buf);
		cli_warn(cmd, "%s; instructions are shown as <undefined>", buf);
	}
	for (size_t k = first; rc == EXIT_OK && k < first + nbuf; k++) {
		if (src.snap)
			use_buffer(&r, &src, k, nbuf > 1);
		rc = trbe_parts(o, &src, &err);
		if (rc == EXIT_OK)
			rc = decode_source(&r, &src, &err);
		if (rc == EXIT_OK) {
			finish_streams(&r);
			if (!strcmp(o->verb, "stats"))
				print_stats(&r);
		}
		release_streams(&r);
	}
	if (rc == EXIT_OK && r.bad)
		rc = EXIT_BAD_INPUT;
	/* an -o file that did not take the output (a full disk) lost it; the
	 * error shows at the last write or at fclose */
	if (r.out && r.out != stdout) {
		errno = 0;
		int lost = ferror(r.out) | (fclose(r.out) != 0);
		r.out = NULL;
		if (lost && rc == EXIT_OK) {
			cli_error(cmd, "cannot write '%s'%s%s", o->out, errno ? ": " : "",
				  errno ? strerror(errno) : "");
			rc = EXIT_BAD_INPUT;
		}
	}
	release(&r, &src);
	return rc;
}

/* The option table and the verb check; every option lands in struct opts
 * and run_ete does the work. Long only because the table is. */
int cmd_ete_encode(int argc, char **argv);

int cmd_ete(int argc, char **argv)
{
	struct opts o;
	if (argc > 1 && !strcmp(argv[1], "encode"))
		return cmd_ete_encode(argc - 1, argv + 1);
	uint64_t id = 0, chunk = 0;
	int id_seen = 0, rc;
	memset(&o, 0, sizeof o);
	const struct cli_option opts[] = {
		CLI_STRING("buffer", 0, "NAME", &o.buffer,
			   "snapshot buffer to decode (default: every buffer, each\n"
			   "with its own streams)"),
		CLI_U64("id", "N", &id, 0x7f, &id_seen, "only this trace ID (formatted buffers)"),
		CLI_STRING("config", 0, "FILE", &o.config,
			   "raw buffer: ini with [regs] TRCIDR0=... (or NAME=VALUE lines)"),
		CLI_CALLBACK("reg", "NAME=VALUE", reg_option, &o,
			     "raw buffer: set one register (TRCIDR0/1/2/8, TRCCONFIGR,\n"
			     "TRCDEVARCH, TRCTRACEIDR)"),
		CLI_FLAG("formatted", 0, &o.formatted, "raw buffer holds CoreSight 16-byte frames"),
		CLI_FLAG("tpiu", 0, &o.tpiu, "... with FSYNC/HSYNC (TPIU capture)"),
		CLI_FLAG("dstream", 0, &o.dstream, "... a DSTREAM capture file (TPIU + 512-byte blocks)"),
		CLI_U64("trbe-base", "A", &o.base, 0, &o.have_base,
			"raw buffer is TRBE memory [base, limit) written up to"),
		CLI_U64("trbe-limit", "A", &o.limit, 0, &o.have_limit, "the write pointer; see --trbe-wrapped"),
		CLI_U64("trbe-write", "A", &o.write, 0, &o.have_write, "the TRBE write pointer"),
		CLI_CALLBACK("trbe-wrapped", NULL, wrapped_option, &o,
			     "(default when the TRBE values are given) reads\n"
			     "[write, limit) then [base, write)"),
		CLI_CALLBACK("trbe-not-wrapped", NULL, wrapped_option, &o, "reads [base, write)"),
		CLI_STRING("trbe-file", 0, "FILE", &o.trbe_file,
			   "the same values from an ini: base=, limit=, write=, wrapped="),
		CLI_LIST("image", 0, "ADDR=FILE", &o.images, "raw buffer: program image bytes at ADDR"),
		CLI_LIST("elf", 0, "FILE[@BIAS]", &o.elfs, "raw buffer: program image from an ELF file"),
		CLI_STRING("symfs", 0, "DIR", &o.symfs,
			   "perf.data: look for mapped files under DIR (recorded path, base name)"),
		CLI_STRING("binary-dir", 0, "DIR", &o.bindir,
			   "perf.data: mapped files by build id (DIR/<hex id>, DIR/.build-id/..)"),
		CLI_STRING("vmlinux", 0, "FILE", &o.vmlinux,
			   "perf.data: the kernel's ELF image, placed where it ran (KASLR)"),
		CLI_STRING("kallsyms", 0, "FILE", &o.kallsyms,
			   "perf.data: a copy of /proc/kallsyms: kernel symbol names, _text"),
		CLI_U64("chunk", "N", &chunk, 0, NULL, "feed the decoder N bytes at a time (testing)"),
		CLI_STRING("output", 'o', "FILE", &o.out, "output file (default: standard output)"),
		CLI_END,
	};
	const struct cli_command spec = {
		.name = "ete",
		.usage = "packets|decode|stats|tarmac|transactions [options] SRC\n"
			 "       trawl ete encode [options] TRACE --image ELF -o DIR",
		.description =
			"SRC is an Arm snapshot directory (snapshot.ini, trace.ini, device .ini\n"
			"files, memory dumps), a Linux perf.data with cs_etm trace (perf record\n"
			"-e cs_etm//, simpleperf) or a raw trace buffer file.\n"
			"\n"
			"  packets            one packet per line: offset, trace ID, type, fields\n"
			"  decode             instruction ranges, exceptions, contexts, timestamps\n"
			"  stats              packet and element counts\n"
			"  tarmac             instruction-only Tarmac (IT lines with disassembly)\n"
			"  transactions       TME transactions: start and end PC, instructions,\n"
			"                     nesting depth, commit or failure and its reason\n"
			"  encode             a Tarmac trace to an ETE snapshot (trawl ete encode --help)\n",
		.options = opts,
		.min_args = 1, .max_args = 2,
		.missing = "missing subcommand (packets, decode, stats, tarmac, transactions, encode)",
	};
	int n = cli_parse(&spec, argc, argv, &rc);
	if (n < 0)
		return rc;
	o.verb = argv[0];
	o.src = n > 1 ? argv[1] : NULL;
	o.id = id_seen ? (int)id : -1;
	o.chunk = (size_t)chunk;
	if (strcmp(o.verb, "packets") && strcmp(o.verb, "decode") && strcmp(o.verb, "stats") &&
	    strcmp(o.verb, "tarmac") && strcmp(o.verb, "transactions"))
		return cli_usage(cmd, "unknown subcommand '%s'", o.verb);
	if (!o.src)
		return cli_usage(cmd, "missing SRC (snapshot directory or buffer file)");
	return run_ete(&o);
}
