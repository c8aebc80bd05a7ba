/* TME transactions from decoded ETE elements.
 *
 * The trace unit reports the outer transaction only: Transaction Start
 * when the PE enters Transactional state (after the TSTART, a P0
 * instruction, so the range before it ends on that TSTART), Transaction
 * Commit when the outer TCOMMIT runs (not a P0 instruction: the commit
 * comes before the range that holds the TCOMMIT), and a Transaction
 * Failure exception followed by the address where execution resumed.
 * What the trace leaves out is read from the image along the traced
 * instructions: nested TSTART/TCOMMIT pairs (the depth), the TCOMMIT
 * itself, and a TCANCEL between the last P0 element and a failure, whose
 * immediate is the reason the program gave.
 */
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"
#include "trawl/event.h"

#define FAIL_WALK_MAX 4096

enum { OUTSIDE, INSIDE, COMMITTING };

struct trawl_ete_trans_tracker {
	const struct trawl_ete_image *img;
	trawl_ete_trans_fn fn;
	void *fn_ctx;
	int state;
	uint32_t depth;        /* current nesting, from the image */
	uint64_t last_tstart;  /* the last range ended on a TSTART here */
	struct trawl_ete_trans cur;
	struct trawl_ete_trans_stats stats;
};

static int is_tstart(uint32_t i) { return (i & 0xffffffe0u) == 0xd5233060u; }
static int is_tcommit(uint32_t i) { return i == 0xd503307fu; }
static int is_tcancel(uint32_t i) { return (i & 0xffe0001fu) == 0xd4600000u; }

enum trawl_status trawl_ete_trans_create(struct trawl_ete_trans_tracker **out,
					 const struct trawl_ete_image *img, trawl_ete_trans_fn fn,
					 void *fn_ctx, struct trawl_error *err)
{
	struct trawl_ete_trans_tracker *t = calloc(1, sizeof *t);
	*out = t;
	if (!t)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	t->img = img;
	t->fn = fn;
	t->fn_ctx = fn_ctx;
	t->last_tstart = TRAWL_ETE_TRANS_UNKNOWN;
	return TRAWL_OK;
}

void trawl_ete_trans_destroy(struct trawl_ete_trans_tracker *t)
{
	free(t);
}

const struct trawl_ete_trans_stats *trawl_ete_trans_stats(const struct trawl_ete_trans_tracker *t)
{
	return &t->stats;
}

static void open_trans(struct trawl_ete_trans_tracker *t, uint64_t off, uint64_t start_pc,
		       int before)
{
	memset(&t->cur, 0, sizeof t->cur);
	t->cur.start_off = off;
	t->cur.end_off = off;
	t->cur.start_pc = start_pc;
	t->cur.end_pc = TRAWL_ETE_TRANS_UNKNOWN;
	t->cur.resume_pc = TRAWL_ETE_TRANS_UNKNOWN;
	t->cur.depth = 1;
	t->cur.started_before = (uint8_t)before;
	t->depth = 1;
	t->state = INSIDE;
}

static void close_trans(struct trawl_ete_trans_tracker *t, int outcome, uint64_t off)
{
	t->cur.outcome = (uint8_t)outcome;
	if (off != TRAWL_ETE_TRANS_UNKNOWN)
		t->cur.end_off = off;
	switch (outcome) {
	case TRAWL_ETE_TRANS_COMMITTED: t->stats.committed++; break;
	case TRAWL_ETE_TRANS_FAILED: t->stats.failed++; break;
	case TRAWL_ETE_TRANS_OPEN: t->stats.open++; break;
	default: t->stats.lost++; break;
	}
	t->state = OUTSIDE;
	t->fn(t->fn_ctx, &t->cur);
}

/* A range inside a transaction: count its instructions and follow the
 * nesting in the image. The range after a commit element holds the outer
 * TCOMMIT: the last TCOMMIT in it (one after that would be outside any
 * transaction), where the transaction ends; no TCOMMIT there leaves the end
 * unknown. A64 only (TME has no AArch32 form); elsewhere only the count. */
static void inside_range(struct trawl_ete_trans_tracker *t, const struct trawl_ete_elem *e)
{
	uint64_t a = e->start, commit_pc = TRAWL_ETE_TRANS_UNKNOWN;
	uint32_t n, commit_n = 0;
	for (n = 0; n < e->count; n++) {
		uint32_t enc = 0;
		unsigned size = e->isa == TRAWL_ISET_A64 ? trawl_ete_insn_fetch(t->img, a, e->isa, &enc) : 0;
		if (!size)
			break;
		if (is_tstart(enc)) { /* P0: only ever the last of a range, and it ran */
			if (++t->depth > t->cur.depth)
				t->cur.depth = t->depth;
		} else if (is_tcommit(enc)) {
			commit_pc = a;
			commit_n = n + 1;
			if (t->state != COMMITTING && t->depth > 1)
				t->depth--;
		}
		a += size;
	}
	if (t->state != COMMITTING) {
		t->cur.insns += e->count;
		return;
	}
	t->cur.end_pc = commit_pc;
	t->cur.insns += commit_n;
	close_trans(t, TRAWL_ETE_TRANS_COMMITTED, TRAWL_ETE_TRANS_UNKNOWN);
}

/* A failure: walk from where the PE was (when the trace says) to the next
 * P0 instruction; a TCANCEL on the way is what failed the transaction. */
static void fail_reason(struct trawl_ete_trans_tracker *t, const struct trawl_ete_elem *e)
{
	t->cur.fail_form = (uint8_t)e->cc;
	if (e->last_flags & 1)
		t->cur.resume_pc = e->end;
	if (!e->value || e->isa != TRAWL_ISET_A64)
		return;
	uint64_t a = e->start;
	for (uint32_t n = 0; n < FAIL_WALK_MAX; n++) {
		uint32_t enc;
		struct trawl_ete_insn_info ii;
		if (!trawl_ete_insn_fetch(t->img, a, TRAWL_ISET_A64, &enc))
			return;
		if (is_tcancel(enc)) {
			t->cur.reason = TRAWL_ETE_TRANS_TCANCEL;
			t->cur.cancel_imm = (uint16_t)((enc >> 5) & 0xffff);
			t->cur.end_pc = a;
			t->cur.insns += n + 1;
			return;
		}
		trawl_ete_insn_classify(enc, TRAWL_ISET_A64, a, 1, &ii);
		if (ii.cls != TRAWL_ETE_INSN_OTHER)
			return;
		a += 4;
	}
}

static void on_memtrans(struct trawl_ete_trans_tracker *t, const struct trawl_ete_elem *e)
{
	switch (e->count) {
	case TRAWL_ETE_TRANS_INIT: case TRAWL_ETE_TRANS_START:
		if (t->state != OUTSIDE)
			close_trans(t, TRAWL_ETE_TRANS_LOST, e->offset);
		open_trans(t, e->offset, e->count == TRAWL_ETE_TRANS_START ? t->last_tstart
					   : TRAWL_ETE_TRANS_UNKNOWN,
			   e->count == TRAWL_ETE_TRANS_INIT);
		break;
	case TRAWL_ETE_TRANS_COMMIT:
		if (t->state == OUTSIDE)
			open_trans(t, e->offset, TRAWL_ETE_TRANS_UNKNOWN, 1);
		t->cur.end_off = e->offset;
		t->state = COMMITTING;
		break;
	case TRAWL_ETE_TRANS_FAIL:
		if (t->state == OUTSIDE)
			open_trans(t, e->offset, TRAWL_ETE_TRANS_UNKNOWN, 1);
		fail_reason(t, e);
		close_trans(t, TRAWL_ETE_TRANS_FAILED, e->offset);
		break;
	default:
		break;
	}
}

/* Everything that ends knowledge of the stream ends an open transaction:
 * the end of the trace leaves it open, lost trace leaves its outcome
 * unknown. A commit whose TCOMMIT never showed up is still a commit. */
void trawl_ete_trans_elem(struct trawl_ete_trans_tracker *t, const struct trawl_ete_elem *e)
{
	switch (e->type) {
	case TRAWL_ETE_EL_RANGE:
		if (t->state != OUTSIDE)
			inside_range(t, e);
		t->last_tstart = e->last_cls == TRAWL_ETE_INSN_TSTART && e->count
				 ? e->end - e->last_size : TRAWL_ETE_TRANS_UNKNOWN;
		break;
	case TRAWL_ETE_EL_MEMTRANS:
		on_memtrans(t, e);
		break;
	case TRAWL_ETE_EL_BAD: case TRAWL_ETE_EL_OVERFLOW: case TRAWL_ETE_EL_DISCARD:
		if (t->state == COMMITTING)
			close_trans(t, TRAWL_ETE_TRANS_COMMITTED, TRAWL_ETE_TRANS_UNKNOWN);
		else if (t->state == INSIDE)
			close_trans(t, TRAWL_ETE_TRANS_LOST, e->offset);
		t->last_tstart = TRAWL_ETE_TRANS_UNKNOWN;
		break;
	case TRAWL_ETE_EL_END:
		trawl_ete_trans_finish(t);
		break;
	default:
		break;
	}
}

void trawl_ete_trans_finish(struct trawl_ete_trans_tracker *t)
{
	if (t->state == COMMITTING)
		close_trans(t, TRAWL_ETE_TRANS_COMMITTED, TRAWL_ETE_TRANS_UNKNOWN);
	else if (t->state == INSIDE)
		close_trans(t, TRAWL_ETE_TRANS_OPEN, TRAWL_ETE_TRANS_UNKNOWN);
}
