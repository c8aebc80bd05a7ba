/* ETE encoder: executed instructions in, the packets a trace unit would
 * write out (packet bytes in encode-pkt.c).
 *
 * Each instruction is settled when the next one arrives, since only its
 * successor says whether a branch was taken:
 *   - a P0 instruction (branch, ISB, WFI, TSTART, by the same classifier
 *     the flow decoder walks with) gives an atom: direct branches only an
 *     atom, taken indirect ones an atom E and the target's address;
 *   - an SVC (A64, A32, T32) gives an Exception packet (Call) with its
 *     preferred return address; when the next instruction is the one after
 *     it at the same level (the system call ran untraced, as in a trace of
 *     EL0 only) the trace resumes with Trace On and an address with context;
 *   - a jump no branch explains is an exception the source did not name
 *     (type IRQ), and the one it names through trawl_ete_encoder_exception
 *     keeps its own type;
 *   - a change of exception level, security state or instruction set width
 *     restates the context with the next address.
 * A-Sync + Trace Info repeat once sync_period bytes have been written, at
 * the next P0 boundary, followed by the full address and context, so a
 * decoder starting at any A-Sync knows where it is. At the end, a last P0
 * instruction gets its atom (E unless it is conditional), and instructions
 * after the last P0 element end with a Debug Halt exception so that the
 * decoders report them too.
 */
#include <stdlib.h>
#include <string.h>

#include "ete/encode-int.h"

#define EXC_DEBUG_HALT 1u
#define EXC_CALL 2u
#define EXC_IRQ 14u

void trawl_ete_enc_config(const struct trawl_ete_enc_options *o, struct trawl_ete_config *cfg)
{
	trawl_ete_config_default(cfg);
	cfg->idr2 = 0x10000488;   /* + CCSIZE 8: a 20-bit cycle counter */
	cfg->idr8 = o ? o->speculate : 0; /* MaxSpec (0: no speculation) */
	if (o && o->no_commopt)
		cfg->idr0 &= ~(1u << 29);
	cfg->configr = 0x1 | (o && o->timestamps ? 0x800u : 0) | (o && o->cycle_counts ? 0x10u : 0);
	cfg->trace_id = 0x10;
	trawl_ete_config_derive(cfg, NULL);
}

enum trawl_status trawl_ete_encoder_create(struct trawl_ete_encoder **out,
					   const struct trawl_ete_enc_options *o,
					   trawl_ete_write_fn fn, void *fn_ctx,
					   struct trawl_error *err)
{
	*out = NULL;
	struct trawl_ete_encoder *e = calloc(1, sizeof *e);
	if (!e)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (o)
		e->o = *o;
	if (!e->o.sync_period)
		e->o.sync_period = 4096;
	e->spec_seed = 0x2545f4914f6cdd1dull;
	e->spec_depth = 1;
	trawl_ete_enc_config(&e->o, &e->cfg);
	e->fn = fn;
	e->fn_ctx = fn_ctx;
	trawl_error_clear(&e->fail);
	*out = e;
	return TRAWL_OK;
}

void trawl_ete_encoder_destroy(struct trawl_ete_encoder *e)
{
	free(e);
}

const struct trawl_ete_enc_stats *trawl_ete_encoder_stats(const struct trawl_ete_encoder *e)
{
	return &e->stats;
}

static enum trawl_status status(struct trawl_ete_encoder *e, struct trawl_error *err)
{
	if (e->st != TRAWL_OK && err)
		*err = e->fail;
	return e->st;
}

static int is_svc(uint32_t enc, uint8_t isa, uint8_t size)
{
	if (isa == TRAWL_ISET_A64)
		return (enc & 0xffe0001fu) == 0xd4000001u;
	if (isa == TRAWL_ISET_A32)
		return (enc & 0x0f000000u) == 0x0f000000u && (enc >> 28) != 0xf;
	return size == 2 && (enc & 0xff00u) == 0xdf00u;
}

static uint8_t is_bit(uint8_t isa)
{
	return isa == TRAWL_ISET_T32;
}

/* The atom of the previous instruction (a P0 one) given where execution
 * went next; returns 1 when `next` is where that atom leads (else the
 * caller explains the jump with an exception). */
static int settle_p0(struct trawl_ete_encoder *e, uint64_t next, uint64_t *went)
{
	const struct trawl_ete_enc_insn *p = &e->prev;
	const struct trawl_ete_insn_info *ii = &e->pinfo;
	uint64_t succ = p->pc + p->size;
	int cond = (ii->flags & TRAWL_ETE_INSN_COND) != 0;
	int taken;
	if (ii->cls == TRAWL_ETE_INSN_BR) {
		taken = next == ii->target && (!cond || next != succ);
		if (!taken && !cond)
			taken = 1; /* an unconditional branch that went elsewhere */
		enc_atom(e, taken, p->cycles);
		*went = taken ? ii->target : succ;
		return next == *went;
	}
	if (ii->cls == TRAWL_ETE_INSN_IBR) {
		taken = !(cond && next == succ);
		enc_atom(e, taken, p->cycles);
		if (taken)
			e->need_addr = 1;
		*went = next;
		return 1;
	}
	enc_atom(e, 1, p->cycles); /* ISB, WFI, TSTART: E, then on in line */
	*went = succ;
	return next == succ;
}

/* Where the previous instruction would have gone if nothing interrupted
 * it: the preferred return address of an exception taken after it. */
static uint64_t prev_successor(const struct trawl_ete_encoder *e)
{
	return e->prev.pc + e->prev.size;
}

static void exception(struct trawl_ete_encoder *e, uint32_t type, uint64_t ret)
{
	enc_exception(e, type, ret, is_bit(e->prev.isa));
	e->uncovered = 0;
	e->need_addr = 1;
}

/* The exception trawl_ete_encoder_exception announced: a P0 instruction
 * before it gets its atom towards the return address first. */
static void named_exception(struct trawl_ete_encoder *e, uint64_t succ)
{
	uint64_t ret = e->exc_ret ? e->exc_ret : succ, went;
	e->exc_pending = 0;
	if (e->pinfo.cls != TRAWL_ETE_INSN_OTHER)
		settle_p0(e, ret, &went);
	exception(e, e->exc_type, ret);
}

/* Settle the previous instruction now that the next one (at next, at
 * exception level el) is known. */
static void settle(struct trawl_ete_encoder *e, const struct trawl_ete_enc_insn *in)
{
	uint64_t succ = prev_successor(e), went;
	if (e->closed)
		return;
	if (e->exc_pending) {
		named_exception(e, succ);
		return;
	}
	if (e->pinfo.cls != TRAWL_ETE_INSN_OTHER) {
		e->uncovered = 0;
		if (!settle_p0(e, in->pc, &went))
			exception(e, EXC_IRQ, went);
		return;
	}
	if (e->prev_svc) {
		exception(e, EXC_CALL, succ);
		if (in->pc == succ && in->el == e->prev.el)
			e->need_trace_on = 1;
		return;
	}
	if (in->pc != succ)
		exception(e, EXC_IRQ, succ);
}

static int ctx_changed(const struct trawl_ete_encoder *e, const struct trawl_ete_enc_insn *in)
{
	return !e->ctx_valid || e->ctx_el != in->el || e->ctx_sec != in->security ||
	       e->ctx_sf != (in->isa == TRAWL_ISET_A64);
}

enum trawl_status trawl_ete_encoder_insn(struct trawl_ete_encoder *e,
					 const struct trawl_ete_enc_insn *in,
					 struct trawl_error *err)
{
	if (e->st != TRAWL_OK)
		return status(e, err);
	if (!e->have_prev) {
		enc_sync(e, in->time);
		e->need_trace_on = 1;
	} else {
		settle(e, in);
		/* a periodic sync only where no instruction is left unreported */
		if (!e->uncovered && e->since_sync >= e->o.sync_period) {
			enc_sync(e, in->time);
			e->need_addr = e->need_ctx = 1;
		}
	}
	if (e->need_trace_on) {
		enc_trace_on(e, in->time);
		e->need_addr = e->need_ctx = 1;
	}
	if (ctx_changed(e, in))
		e->need_ctx = 1;
	if (e->need_addr || e->need_ctx)
		enc_address(e, in->pc, is_bit(in->isa), e->need_ctx ? in : NULL);
	e->need_addr = e->need_ctx = e->need_trace_on = 0;
	e->prev = *in;
	trawl_ete_insn_classify(in->enc, in->isa, in->pc, 1, &e->pinfo);
	e->prev_svc = is_svc(in->enc, in->isa, in->size);
	e->uncovered = 1;
	e->have_prev = 1;
	e->closed = 0;
	e->stats.insns++;
	return status(e, err);
}

enum trawl_status trawl_ete_encoder_exception(struct trawl_ete_encoder *e, uint32_t type,
					      uint64_t ret, struct trawl_error *err)
{
	if (e->have_prev) {
		e->exc_pending = 1;
		e->exc_type = type;
		e->exc_ret = ret;
	}
	return status(e, err);
}

/* The last instruction before a gap or the end: its atom, or an
 * exception that reports the run after the last P0 element. */
static void close_run(struct trawl_ete_encoder *e)
{
	uint64_t succ = prev_successor(e);
	if (!e->have_prev || e->closed)
		return;
	if (e->exc_pending) {
		named_exception(e, succ);
	} else if (e->pinfo.cls != TRAWL_ETE_INSN_OTHER) {
		int cond = (e->pinfo.flags & TRAWL_ETE_INSN_COND) != 0;
		enc_atom(e, !cond, e->prev.cycles);
		e->need_addr = 1;
	} else if (e->uncovered) {
		exception(e, e->prev_svc ? EXC_CALL : EXC_DEBUG_HALT, succ);
	}
	e->uncovered = 0;
	e->closed = 1;
}

enum trawl_status trawl_ete_encoder_gap(struct trawl_ete_encoder *e, struct trawl_error *err)
{
	if (e->st != TRAWL_OK)
		return status(e, err);
	close_run(e);
	if (e->have_prev)
		e->need_trace_on = 1;
	return status(e, err);
}

enum trawl_status trawl_ete_encoder_finish(struct trawl_ete_encoder *e, struct trawl_error *err)
{
	if (e->st != TRAWL_OK)
		return status(e, err);
	close_run(e);
	enc_spec_commit(e);
	enc_atoms_flush(e);
	enc_flush_out(e);
	return status(e, err);
}
