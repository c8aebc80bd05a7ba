/* Instruction-flow decoder: packets + program image -> instruction ranges.
 *
 * Atoms say whether the next P0 instruction (branch, ISB, and in ETE also
 * WFI/WFE and TSTART) was taken; the decoder finds that instruction by
 * walking the image from the current address. Walks are cached as blocks:
 * a block is the straight run from an address up to and including the next
 * P0 instruction, so each atom costs one hash lookup once warm.
 *
 * Speculation: P0 elements (atoms, exceptions, Q, source addresses) wait in
 * a queue with the non-P0 packets that follow them until a Commit (or a
 * cycle-count packet with a commit section, or the speculation depth
 * exceeding TRCIDR8.MAXSPEC) releases them in order; Cancel drops the
 * newest, Mispredict flips the newest atom. Non-P0 packets arriving while
 * nothing is held are handled at once (same order of output).
 */
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"
#include "trawl/event.h"

#define BLOCK_MAX_INSNS 4096
#define RSTACK 16
#define WALK_MAX (1u << 20)

/* next[t] and succ[t] are indexed by the atom (0 = N, 1 = E) so that the
 * usual atom costs no branch on its value (atoms mispredict badly). */
struct block {
	uint64_t start;      /* key: address */
	uint64_t next[2];    /* pc after N: the address after the last instruction;
	                      * after E: the direct target (BR), else the same */
	uint64_t nacc;       /* address with no image (when nacc_hit) */
	uint32_t ninsn;
	int32_t succ[2];     /* block index after N / after E (direct), -1 unknown */
	uint8_t isa;         /* key: instruction set */
	uint8_t cls, iflags, size;
	uint8_t nacc_hit;
	uint8_t fast;        /* an atom here just moves to next[t] (see do_atoms) */
	uint8_t pad_[10];    /* 64 bytes: index to address is one shift */
};

struct qent {
	struct trawl_ete_packet pkt;
	uint32_t p0;         /* P0 elements still held in this entry */
	uint32_t first;      /* atoms already consumed (index of next) */
};

struct trawl_ete_flow {
	struct trawl_ete_config cfg;
	struct trawl_ete_image *img;
	trawl_ete_elem_fn fn;
	void *fn_ctx;
	/* PE state */
	int pc_valid;
	uint64_t pc;
	uint8_t isa;
	uint8_t last_is;     /* IS bit of the last address */
	struct trawl_ete_ctx ctx;
	int ctx_valid;
	uint64_t rstack[RSTACK];
	int rs_n;
	int rs_pending;      /* indirect branch taken, address may come from the stack */
	/* exception waiting for its address packet */
	int exc_pending;
	struct trawl_ete_packet exc;
	/* speculation queue (ring) */
	struct qent *q;
	size_t qcap, qhead, qlen;
	uint64_t uncommitted;
	/* block cache */
	struct block *blocks;  /* dense, append-only: indices stay valid */
	size_t nblocks, capblocks;
	int32_t *ht;           /* open addressing: block index + 1, 0 = empty */
	size_t hcap;
	int32_t cur;           /* block starting at pc, -1 unknown */
	uint64_t img_gen;      /* the image's generation the blocks were walked in */
	struct trawl_ete_flow_stats stats;
	int nomem;
	int generic;         /* no fast paths, no block reuse (tests' reference) */
	int synced;          /* a Trace Info has been seen since the last error */
	/* a transaction failure waits for the address that follows it (where
	 * the PE resumed) until any other packet is handled */
	int fail_pending;
	struct trawl_ete_elem fail;
};

static const char *const elem_names[] = {
	"?", "NO_SYNC", "TRACE_ON", "PE_CONTEXT", "INSTR_RANGE", "I_RANGE_NOPATH", "ADDR_NACC",
	"EXCEPTION", "EXCEPTION_RET", "TIMESTAMP", "CYCLE_COUNT", "EVENT", "SYNC_MARKER",
	"INSTRUMENTATION", "MEMTRANS", "OVERFLOW", "DISCARD", "BAD_PACKET", "EO_TRACE",
};

const char *trawl_ete_elem_name(enum trawl_ete_elem_type t)
{
	return (unsigned)t < sizeof elem_names / sizeof elem_names[0] ? elem_names[t] : "?";
}

enum trawl_status trawl_ete_flow_create(struct trawl_ete_flow **out,
					const struct trawl_ete_config *cfg,
					struct trawl_ete_image *img, trawl_ete_elem_fn fn,
					void *fn_ctx, struct trawl_error *err)
{
	struct trawl_ete_flow *f = calloc(1, sizeof *f);
	*out = NULL;
	if (!f)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	f->cfg = *cfg;
	f->img = img;
	f->fn = fn;
	f->fn_ctx = fn_ctx;
	f->qcap = 256;
	f->q = malloc(f->qcap * sizeof *f->q);
	f->capblocks = 256;
	f->blocks = malloc(f->capblocks * sizeof *f->blocks);
	f->hcap = 1024;
	f->ht = calloc(f->hcap, sizeof *f->ht);
	f->cur = -1;
	if (!f->q || !f->blocks || !f->ht) {
		trawl_ete_flow_destroy(f);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	f->isa = TRAWL_ISET_A64;
	f->img_gen = trawl_ete_image_generation(img);
	*out = f;
	return TRAWL_OK;
}

void trawl_ete_flow_destroy(struct trawl_ete_flow *f)
{
	if (!f)
		return;
	free(f->q);
	free(f->blocks);
	free(f->ht);
	free(f);
}

const struct trawl_ete_flow_stats *trawl_ete_flow_stats(const struct trawl_ete_flow *f)
{
	return &f->stats;
}

static inline void emit(struct trawl_ete_flow *f, struct trawl_ete_elem *e)
{
	e->el = f->ctx.el;
	if (!e->isa)
		e->isa = f->isa;
	f->fn(f->fn_ctx, e);
}

static void emit_simple(struct trawl_ete_flow *f, int type, uint64_t off, uint64_t value,
			uint32_t count)
{
	struct trawl_ete_elem e;
	memset(&e, 0, sizeof e);
	e.type = (uint8_t)type;
	e.offset = off;
	e.value = value;
	e.count = count;
	emit(f, &e);
}

static void flush_fail(struct trawl_ete_flow *f)
{
	f->fail_pending = 0;
	emit(f, &f->fail);
}

/* Before any packet is handled after a failure: an address packet says
 * where the PE resumed; whatever comes, the failure goes out first. */
static void take_fail(struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	if ((p->type >= TRAWL_ETE_PKT_ADDR_CTXT_L_32IS0 && p->type <= TRAWL_ETE_PKT_ADDR_CTXT_L_64IS1) ||
	    (p->type >= TRAWL_ETE_PKT_ADDR_MATCH && p->type <= TRAWL_ETE_PKT_ADDR_L_64IS1)) {
		f->fail.end = p->addr;
		f->fail.last_flags = 1;
	}
	flush_fail(f);
}

/* Report instructions [start, end) that ran; the last one is described
 * by cls/flags/size and was taken or not. */
static inline void emit_range(struct trawl_ete_flow *f, uint64_t off, uint64_t start, uint64_t end,
		       uint32_t count, int taken, uint8_t cls, uint8_t flags, uint8_t size)
{
	struct trawl_ete_elem e;
	memset(&e, 0, sizeof e);
	e.type = TRAWL_ETE_EL_RANGE;
	e.offset = off;
	e.start = start;
	e.end = end;
	e.count = count;
	e.taken = (uint8_t)taken;
	e.last_cls = cls;
	e.last_flags = flags;
	e.last_size = size;
	f->stats.ranges++;
	f->stats.instructions += count;
	emit(f, &e);
}

/* ---- block cache */

static inline size_t bhash(uint64_t a, uint8_t isa, size_t cap)
{
	uint64_t h = (a ^ ((uint64_t)isa << 61)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (cap - 1);
}

static int grow_hash(struct trawl_ete_flow *f)
{
	size_t nc = f->hcap * 2;
	int32_t *nh = calloc(nc, sizeof *nh);
	if (!nh)
		return 0;
	for (size_t i = 0; i < f->nblocks; i++) {
		size_t h = bhash(f->blocks[i].start, f->blocks[i].isa, nc);
		while (nh[h])
			h = (h + 1) & (nc - 1);
		nh[h] = (int32_t)i + 1;
	}
	free(f->ht);
	f->ht = nh;
	f->hcap = nc;
	return 1;
}

static inline int fetch(struct trawl_ete_flow *f, uint64_t pc, int isa, uint32_t *enc)
{
	return trawl_ete_insn_fetch(f->img, pc, isa, enc) != 0;
}

/* Fill *b with the block starting at pc: walk until a P0 instruction,
 * missing memory or the length limit. */
static void walk_block(struct trawl_ete_flow *f, uint64_t pc, uint8_t isa, struct block *out)
{
	struct block b;
	memset(&b, 0, sizeof b);
	b.start = pc;
	b.isa = isa;
	b.succ[0] = b.succ[1] = -1;
	uint64_t a = pc;
	for (;;) {
		uint32_t enc;
		struct trawl_ete_insn_info ii;
		if (!fetch(f, a, isa, &enc)) {
			b.nacc_hit = 1;
			b.nacc = a;
			break;
		}
		trawl_ete_insn_classify(enc, isa, a, f->cfg.is_ete, &ii);
		b.ninsn++;
		b.size = ii.size;
		a += ii.size;
		if (ii.cls != TRAWL_ETE_INSN_OTHER) {
			b.cls = ii.cls;
			b.iflags = ii.flags;
			b.next[1] = ii.target;
			break;
		}
		if (b.ninsn >= BLOCK_MAX_INSNS)
			break;
	}
	b.next[0] = a;
	if (b.cls != TRAWL_ETE_INSN_BR)
		b.next[1] = a;
	b.fast = !b.nacc_hit && b.cls != TRAWL_ETE_INSN_OTHER && b.cls != TRAWL_ETE_INSN_IBR &&
		 !(b.iflags & TRAWL_ETE_INSN_XISA) &&
		 !((b.iflags & TRAWL_ETE_INSN_LINK) && f->cfg.return_stack);
	*out = b;
}

/* Index of the block starting at pc, walked by walk_block when new.
 * Returns -1 only when out of memory. */
static int32_t get_block(struct trawl_ete_flow *f, uint64_t pc, uint8_t isa)
{
	if (f->generic) {
		f->nblocks = 0; /* walked afresh every time, into block 0 */
		f->stats.block_misses++;
		walk_block(f, pc, isa, &f->blocks[f->nblocks++]);
		return 0;
	}
	size_t h = bhash(pc, isa, f->hcap);
	int32_t k;
	while ((k = f->ht[h]) != 0) {
		const struct block *c = &f->blocks[k - 1];
		if (c->start == pc && c->isa == isa) {
			f->stats.block_hits++;
			return k - 1;
		}
		h = (h + 1) & (f->hcap - 1);
	}
	f->stats.block_misses++;
	if (f->nblocks == f->capblocks) {
		if (f->capblocks >= (1u << 30))
			return -1;
		struct block *nb = realloc(f->blocks, 2 * f->capblocks * sizeof *nb);
		if (!nb) {
			f->nomem = 1;
			return -1;
		}
		f->blocks = nb;
		f->capblocks *= 2;
	}
	if ((f->nblocks + 1) * 2 > f->hcap) {
		if (!grow_hash(f)) {
			f->nomem = 1;
			return -1;
		}
		h = bhash(pc, isa, f->hcap);
		while (f->ht[h])
			h = (h + 1) & (f->hcap - 1);
	}
	struct block b;
	walk_block(f, pc, isa, &b);
	int32_t idx = (int32_t)f->nblocks++;
	f->blocks[idx] = b;
	f->ht[h] = idx + 1;
	return idx;
}

/* ---- PE state updates */

static uint8_t isa_for(const struct trawl_ete_flow *f, uint8_t is)
{
	if (f->ctx_valid && !f->ctx.sf)
		return is ? TRAWL_ISET_T32 : TRAWL_ISET_A32;
	if (!f->ctx_valid && is)
		return TRAWL_ISET_T32;
	return TRAWL_ISET_A64;
}

static void set_ctx(struct trawl_ete_flow *f, const struct trawl_ete_ctx *c, uint64_t off)
{
	struct trawl_ete_ctx n = *c;
	/* VMID / context ID persist when the packet does not carry them */
	if (!n.has_vmid && f->ctx.has_vmid) {
		n.has_vmid = 1;
		n.vmid = f->ctx.vmid;
	}
	if (!n.has_cid && f->ctx.has_cid) {
		n.has_cid = 1;
		n.cid = f->ctx.cid;
	}
	/* every context packet is reported, changed or not (as OpenCSD does):
	 * consumers see where the trace unit restated it */
	int changed = 1;
	f->ctx = n;
	f->ctx_valid = 1;
	/* the context may follow the address it applies to */
	f->isa = isa_for(f, f->last_is);
	if (changed) {
		struct trawl_ete_elem e;
		memset(&e, 0, sizeof e);
		e.type = TRAWL_ETE_EL_CONTEXT;
		e.offset = off;
		e.ctx = n;
		e.isa = n.sf ? TRAWL_ISET_A64 : TRAWL_ISET_A32;
		emit(f, &e);
	}
}

static void set_addr(struct trawl_ete_flow *f, uint64_t addr, uint8_t is)
{
	f->pc = addr;
	f->last_is = is;
	f->isa = isa_for(f, is);
	f->pc_valid = 1;
	f->rs_pending = 0;
	f->cur = -1;
}

static void rs_push(struct trawl_ete_flow *f, uint64_t a)
{
	if (f->rs_n == RSTACK) {
		memmove(f->rstack, f->rstack + 1, (RSTACK - 1) * sizeof f->rstack[0]);
		f->rs_n--;
	}
	f->rstack[f->rs_n++] = a;
}

/* Before a P0 element: an indirect branch whose address was omitted
 * because the return stack predicted it. */
static void resolve_rs(struct trawl_ete_flow *f)
{
	if (f->rs_pending && f->cfg.return_stack && f->rs_n > 0) {
		f->pc = f->rstack[--f->rs_n];
		f->pc_valid = 1;
	}
	f->rs_pending = 0;
}

/* No image at addr: atoms cannot be followed until the next address, but
 * the PE is known to be at addr (an exception walk still starts there). */
static void nacc(struct trawl_ete_flow *f, uint64_t addr, uint64_t off)
{
	f->stats.nacc++;
	emit_simple(f, TRAWL_ETE_EL_NACC, off, addr, 0);
	f->pc = addr;
	f->pc_valid = 0;
}

/* The block after block k's atom t (pc already moved there), linked into
 * k so the next time costs no lookup; -1 when out of memory. */
static int32_t link_succ(struct trawl_ete_flow *f, int32_t k, unsigned t)
{
	int32_t n = get_block(f, f->pc, f->isa);
	if (!f->generic)
		f->blocks[k].succ[t] = n;
	return n;
}

/* One atom resolves one P0 instruction: walk cached blocks from pc to one
 * ending in a P0 instruction (straight runs longer than a block are reported
 * on the way), then follow the atom. Successors are linked lazily, so a warm
 * loop costs one lookup per atom. No image, or an indirect branch, leaves pc
 * unknown until the next address: it is never guessed. */
static void do_atom(struct trawl_ete_flow *f, int taken, uint64_t off)
{
	resolve_rs(f);
	if (!f->pc_valid)
		return;
	int32_t k = f->cur;
	const struct block *b;
	for (;;) {
		if (k < 0 || f->generic || f->blocks[k].start != f->pc || f->blocks[k].isa != f->isa)
			k = get_block(f, f->pc, f->isa);
		else
			f->stats.block_hits++;
		if (k < 0) {
			f->pc_valid = 0;
			return;
		}
		b = &f->blocks[k];
		if (b->nacc_hit) {
			if (b->ninsn) /* what ran before the image ends */
				emit_range(f, off, b->start, b->next[0], b->ninsn, 1, 0, 0, b->size);
			f->cur = -1;
			nacc(f, b->nacc, off);
			return;
		}
		if (b->cls != TRAWL_ETE_INSN_OTHER)
			break;
		/* very long straight run: report it and keep walking */
		emit_range(f, off, b->start, b->next[0], b->ninsn, 0, 0, 0, b->size);
		f->pc = b->next[0];
		k = b->succ[0];
	}
	emit_range(f, off, b->start, b->next[0], b->ninsn, taken, b->cls, b->iflags, b->size);
	b = &f->blocks[k]; /* the callback cannot move blocks, but be explicit */
	uint8_t cls = b->cls, fl = b->iflags;
	if (taken && (fl & TRAWL_ETE_INSN_LINK) && f->cfg.return_stack)
		rs_push(f, b->next[0]);
	if (taken && cls == TRAWL_ETE_INSN_IBR) {
		f->pc_valid = 0;
		f->cur = -1;
		f->rs_pending = 1;
		if ((fl & TRAWL_ETE_INSN_ERET) && f->cfg.is_ete)
			emit_simple(f, TRAWL_ETE_EL_EXC_RET, off, 0, 0);
		return;
	}
	if (taken && (fl & TRAWL_ETE_INSN_XISA))
		f->isa = f->isa == TRAWL_ISET_T32 ? TRAWL_ISET_A32 : TRAWL_ISET_T32;
	f->pc = b->next[taken];
	f->cur = b->succ[taken];
	if (f->cur < 0)
		f->cur = link_succ(f, k, taken);
}

/* A packet's n atoms (bit i = atom i, oldest first, 1 = E). An atom on the
 * current block when that block is marked fast (a P0 branch whose atom
 * only moves pc: no return stack push, no indirect branch, no change of
 * instruction set) is followed here: the next pc and block are picked with
 * the atom's value as an index, not a branch, and only pc, the atoms and
 * the block stay in registers across the callback. Anything else goes
 * through do_atom, which does its own lookup, so every counter moves
 * exactly as per-atom do_atom would move it. */
static void atom_run(struct trawl_ete_flow *f, uint32_t bits, unsigned n, uint64_t off)
{
	struct trawl_ete_elem e;
	memset(&e, 0, sizeof e);
	e.type = TRAWL_ETE_EL_RANGE;
	e.offset = off;
	e.el = f->ctx.el; /* no atom changes the context */
	/* the atoms with a stop bit above the last: one register for the loop */
	uint64_t rem = ((uint64_t)bits & ((1ull << n) - 1)) | (1ull << n);
	/* the block index stays in a register: the chain from one atom to
	 * the next is then two loads (successor, block) */
	int32_t k = f->cur;
	for (; rem > 1; rem >>= 1) {
		unsigned t = rem & 1;
		const struct block *b = &f->blocks[k < 0 ? 0 : k];
		if (__builtin_expect(k < 0 || !b->fast || !f->pc_valid || f->rs_pending ||
					     f->generic || b->start != f->pc || b->isa != f->isa,
				     0)) {
			do_atom(f, (int)t, off);
			k = f->cur;
			continue;
		}
		f->stats.block_hits++;
		f->stats.ranges++;
		f->stats.instructions += b->ninsn;
		e.isa = f->isa;
		e.start = b->start;
		e.end = b->next[0];
		e.count = b->ninsn;
		e.taken = (uint8_t)t;
		e.last_cls = b->cls;
		e.last_flags = b->iflags;
		e.last_size = b->size;
		f->fn(f->fn_ctx, &e);
		f->pc = b->next[t];
		int32_t nk = b->succ[t];
		if (__builtin_expect(nk < 0, 0))
			nk = link_succ(f, k, t);
		f->cur = k = nk;
	}
}

/* A packet holds at most 32 atoms' values; any count beyond (only a
 * caller's own packets can have one) goes on as N. */
static void do_atoms(struct trawl_ete_flow *f, uint32_t bits, unsigned n, uint64_t off)
{
	for (; n > 32; n -= 32, bits = 0)
		atom_run(f, bits, 32, off);
	atom_run(f, bits, n, off);
}

/* Walk straight from pc to `stop` (exclusive) for an exception: the
 * instructions up to the preferred return address ran, and any P0
 * instruction among them was not taken (else an atom would say so).
 * Returns instructions walked, 0 if stop is not ahead. */
static uint32_t walk_to(struct trawl_ete_flow *f, uint64_t stop, uint64_t *last_end,
			uint8_t *cls, uint8_t *fl, uint8_t *size, int *nacc_hit)
{
	uint64_t a = f->pc;
	uint32_t n = 0;
	*nacc_hit = 0;
	*last_end = a;
	if (stop < a || stop - a > WALK_MAX * 4ull)
		return 0;
	while (a < stop && n < WALK_MAX) {
		uint32_t enc;
		struct trawl_ete_insn_info ii;
		if (!fetch(f, a, f->isa, &enc)) {
			*nacc_hit = 1;
			break;
		}
		trawl_ete_insn_classify(enc, f->isa, a, f->cfg.is_ete, &ii);
		a += ii.size;
		n++;
		*cls = ii.cls;
		*fl = ii.flags;
		*size = ii.size;
	}
	*last_end = a;
	return (a == stop || *nacc_hit) ? n : 0;
}

/* Transaction failure (ETE exception type 0x18): the element says where
 * the PE was (the instruction after the last P0 element, when known: the
 * failing instruction is at or after it), the packet's address
 * interpretation E1:E0, and, once the address packet after it arrives, where
 * execution resumed (the instruction after the outer TSTART). */
static void trans_fail(struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	struct trawl_ete_elem *e = &f->fail;
	if (f->fail_pending)
		flush_fail(f);
	memset(e, 0, sizeof *e);
	e->type = TRAWL_ETE_EL_MEMTRANS;
	e->offset = p->offset;
	e->count = TRAWL_ETE_TRANS_FAIL;
	e->cc = p->exc_addr_interp;
	e->isa = f->isa;
	if (f->pc_valid) {
		e->start = f->pc;
		e->value = 1;
	}
	f->fail_pending = 1;
}

static void do_exception(struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	resolve_rs(f);
	uint64_t ret = p->addr;
	/* the context with the return address is the interrupted code's */
	if (p->flags & TRAWL_ETE_PF_HAS_CTX)
		set_ctx(f, &p->ctx, p->offset);
	if (p->type == TRAWL_ETE_PKT_TRANS_FAIL) {
		trans_fail(f, p);
	} else {
		/* from a place with no image nothing can be walked: the gap
		 * already has its one no-image element */
		if (f->pc_valid && (p->flags & TRAWL_ETE_PF_HAS_ADDR) && f->pc != ret) {
			uint64_t end;
			uint8_t cls = 0, fl = 0, size = 4;
			int hole;
			uint32_t n = walk_to(f, ret, &end, &cls, &fl, &size, &hole);
			if (n)
				emit_range(f, p->offset, f->pc, end, n, 1, cls, fl, size);
			if (hole)
				nacc(f, end, p->offset);
		}
		struct trawl_ete_elem e;
		memset(&e, 0, sizeof e);
		e.type = TRAWL_ETE_EL_EXCEPTION;
		e.offset = p->offset;
		e.value = ret;
		e.count = p->count;
		e.start = (p->flags & TRAWL_ETE_PF_HAS_ADDR) ? 1 : 0;
		emit(f, &e);
		f->stats.exceptions++;
	}
	f->pc_valid = 0;
}

/* Q: count instructions ran, path unknown. When walking count
 * instructions straight reaches the Q address, or ends on a branch, the
 * path is known after all; otherwise only the count is reported. */
static void do_q(struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	resolve_rs(f);
	if (!f->pc_valid && (p->flags & TRAWL_ETE_PF_HAS_COUNT)) {
		struct trawl_ete_elem e;
		memset(&e, 0, sizeof e);
		e.type = TRAWL_ETE_EL_RANGE_NOPATH;
		e.offset = p->offset;
		e.count = p->count;
		e.end = (p->flags & TRAWL_ETE_PF_HAS_ADDR) ? p->addr : 0;
		emit(f, &e); /* start unknown (0) */
	} else if (p->flags & TRAWL_ETE_PF_HAS_COUNT) {
		uint64_t a = f->pc;
		uint32_t n = 0;
		int is_branch = 0;
		uint8_t cls = 0, fl = 0, size = 4;
		while (n < p->count) {
			uint32_t enc;
			struct trawl_ete_insn_info ii;
			if (!fetch(f, a, f->isa, &enc))
				break;
			trawl_ete_insn_classify(enc, f->isa, a, f->cfg.is_ete, &ii);
			a += ii.size;
			n++;
			cls = ii.cls;
			fl = ii.flags;
			size = ii.size;
			is_branch = ii.cls == TRAWL_ETE_INSN_BR || ii.cls == TRAWL_ETE_INSN_IBR;
			if (is_branch)
				break;
		}
		struct trawl_ete_elem e;
		memset(&e, 0, sizeof e);
		e.offset = p->offset;
		e.start = f->pc;
		e.count = p->count;
		int has_addr = (p->flags & TRAWL_ETE_PF_HAS_ADDR) != 0;
		if (p->count && n == p->count && ((has_addr && a == p->addr) || is_branch)) {
			e.type = TRAWL_ETE_EL_RANGE;
			e.end = a;
			e.taken = 1;
			e.last_cls = cls;
			e.last_flags = fl;
			e.last_size = size;
			f->stats.ranges++;
			f->stats.instructions += n;
		} else {
			e.type = TRAWL_ETE_EL_RANGE_NOPATH;
			e.end = has_addr ? p->addr : 0;
		}
		emit(f, &e);
	}
	if (p->flags & TRAWL_ETE_PF_HAS_ADDR)
		set_addr(f, p->addr, p->is);
	else
		f->pc_valid = 0;
}

/* Source address (ETE): the instruction at addr is a taken P0
 * instruction, reached from pc in a straight line (P0 instructions on the
 * way were not taken). */
static void do_src(struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	resolve_rs(f);
	uint64_t src = p->addr;
	if (!f->pc_valid || src < f->pc || src - f->pc > 4ull * BLOCK_MAX_INSNS * 16) {
		f->pc = src;
		f->pc_valid = 1;
	}
	uint64_t a = f->pc;
	uint32_t n = 0, enc = 0;
	struct trawl_ete_insn_info ii;
	memset(&ii, 0, sizeof ii);
	for (;;) {
		if (!fetch(f, a, f->isa, &enc)) {
			nacc(f, a, p->offset);
			return;
		}
		trawl_ete_insn_classify(enc, f->isa, a, f->cfg.is_ete, &ii);
		n++;
		if (a >= src)
			break;
		a += ii.size;
	}
	emit_range(f, p->offset, f->pc, a + ii.size, n, 1, ii.cls, ii.flags, ii.size);
	if ((ii.flags & TRAWL_ETE_INSN_LINK) && f->cfg.return_stack)
		rs_push(f, a + ii.size);
	if (ii.cls == TRAWL_ETE_INSN_BR) {
		f->pc = ii.target;
	} else {
		f->pc_valid = 0;
		f->rs_pending = ii.cls == TRAWL_ETE_INSN_IBR;
		if ((ii.flags & TRAWL_ETE_INSN_ERET) && f->cfg.is_ete)
			emit_simple(f, TRAWL_ETE_EL_EXC_RET, p->offset, 0, 0);
	}
}

/* ---- speculation queue */

static int q_push(struct trawl_ete_flow *f, const struct trawl_ete_packet *p, uint32_t p0)
{
	if (f->qlen == f->qcap) {
		size_t nc = f->qcap * 2;
		struct qent *nq = malloc(nc * sizeof *nq);
		if (!nq) {
			f->nomem = 1;
			return 0;
		}
		for (size_t i = 0; i < f->qlen; i++)
			nq[i] = f->q[(f->qhead + i) % f->qcap];
		free(f->q);
		f->q = nq;
		f->qcap = nc;
		f->qhead = 0;
	}
	struct qent *e = &f->q[(f->qhead + f->qlen) % f->qcap];
	e->pkt = *p;
	e->p0 = p0;
	e->first = 0;
	f->qlen++;
	f->uncommitted += p0;
	return 1;
}

static void process(struct trawl_ete_flow *f, const struct trawl_ete_packet *p);

/* Process held entries in order until n P0 elements have been released
 * (all of them when n is UINT64_MAX). */
static void commit(struct trawl_ete_flow *f, uint64_t n)
{
	while (f->qlen) {
		struct qent *e = &f->q[f->qhead];
		if (e->p0 == 0) {
			if (n == 0)
				break;
			process(f, &e->pkt);
		} else {
			if (n == 0)
				break;
			if (e->pkt.natoms && e->pkt.type != TRAWL_ETE_PKT_EXCEPT &&
			    e->pkt.type != TRAWL_ETE_PKT_Q) {
				uint32_t m = e->p0 < n ? e->p0 : (uint32_t)n;
				uint32_t bits = e->first < 32 ? e->pkt.atoms >> e->first : 0;
				e->first += m;
				e->p0 -= m;
				n -= m;
				f->uncommitted -= m;
				do_atoms(f, bits, m, e->pkt.offset);
				if (e->p0)
					break;
			} else {
				e->p0 = 0;
				n--;
				f->uncommitted--;
				process(f, &e->pkt);
			}
		}
		f->qhead = (f->qhead + 1) % f->qcap;
		f->qlen--;
	}
}

/* Drop the newest n P0 elements. */
static void cancel(struct trawl_ete_flow *f, uint32_t n)
{
	while (n && f->qlen) {
		struct qent *e = &f->q[(f->qhead + f->qlen - 1) % f->qcap];
		if (e->p0 == 0) {
			f->qlen--;
			continue;
		}
		uint32_t k = e->p0 < n ? e->p0 : n;
		e->p0 -= k;
		n -= k;
		f->uncommitted -= k;
		if (e->pkt.natoms && e->pkt.natoms >= k)
			e->pkt.natoms = (uint8_t)(e->pkt.natoms - k);
		if (e->p0 == 0)
			f->qlen--;
	}
}

static void mispredict(struct trawl_ete_flow *f)
{
	for (size_t i = f->qlen; i-- > 0;) {
		struct qent *e = &f->q[(f->qhead + i) % f->qcap];
		if (e->p0 && e->pkt.natoms && e->pkt.type != TRAWL_ETE_PKT_EXCEPT &&
		    e->pkt.type != TRAWL_ETE_PKT_Q) {
			e->pkt.atoms ^= 1u << (e->pkt.natoms - 1);
			return;
		}
	}
}

/* Handle one released packet (P0 or not). */
static void process(struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	if (__builtin_expect(f->fail_pending, 0))
		take_fail(f, p);
	switch (p->type) {
	case TRAWL_ETE_PKT_ATOM_F1: case TRAWL_ETE_PKT_ATOM_F2: case TRAWL_ETE_PKT_ATOM_F3:
	case TRAWL_ETE_PKT_ATOM_F4: case TRAWL_ETE_PKT_ATOM_F5: case TRAWL_ETE_PKT_ATOM_F6:
	case TRAWL_ETE_PKT_MISPREDICT: case TRAWL_ETE_PKT_CANCEL_F2: case TRAWL_ETE_PKT_CANCEL_F3:
		do_atoms(f, p->atoms, p->natoms, p->offset);
		break;
	case TRAWL_ETE_PKT_EXCEPT: case TRAWL_ETE_PKT_PE_RESET: case TRAWL_ETE_PKT_TRANS_FAIL:
		do_exception(f, p);
		break;
	case TRAWL_ETE_PKT_Q:
		do_q(f, p);
		break;
	case TRAWL_ETE_PKT_SRC_ADDR_MATCH: case TRAWL_ETE_PKT_SRC_ADDR_S_IS0:
	case TRAWL_ETE_PKT_SRC_ADDR_S_IS1: case TRAWL_ETE_PKT_SRC_ADDR_L_32IS0:
	case TRAWL_ETE_PKT_SRC_ADDR_L_32IS1: case TRAWL_ETE_PKT_SRC_ADDR_L_64IS0:
	case TRAWL_ETE_PKT_SRC_ADDR_L_64IS1:
		do_src(f, p);
		break;
	case TRAWL_ETE_PKT_CTXT:
		if (p->flags & TRAWL_ETE_PF_HAS_CTX)
			set_ctx(f, &p->ctx, p->offset);
		break;
	case TRAWL_ETE_PKT_ADDR_CTXT_L_32IS0: case TRAWL_ETE_PKT_ADDR_CTXT_L_32IS1:
	case TRAWL_ETE_PKT_ADDR_CTXT_L_64IS0: case TRAWL_ETE_PKT_ADDR_CTXT_L_64IS1:
		set_ctx(f, &p->ctx, p->offset);
		set_addr(f, p->addr, p->is);
		break;
	case TRAWL_ETE_PKT_ADDR_MATCH: case TRAWL_ETE_PKT_ADDR_S_IS0: case TRAWL_ETE_PKT_ADDR_S_IS1:
	case TRAWL_ETE_PKT_ADDR_L_32IS0: case TRAWL_ETE_PKT_ADDR_L_32IS1:
	case TRAWL_ETE_PKT_ADDR_L_64IS0: case TRAWL_ETE_PKT_ADDR_L_64IS1:
		set_addr(f, p->addr, p->is);
		break;
	case TRAWL_ETE_PKT_TRACE_ON:
		emit_simple(f, TRAWL_ETE_EL_TRACE_ON, p->offset, 0, 0);
		f->pc_valid = 0;
		break;
	case TRAWL_ETE_PKT_TIMESTAMP:
		emit_simple(f, TRAWL_ETE_EL_TIMESTAMP, p->offset, p->value, 0);
		if (p->flags & TRAWL_ETE_PF_HAS_CC)
			emit_simple(f, TRAWL_ETE_EL_CYCLE_COUNT, p->offset, 0, p->cc);
		break;
	case TRAWL_ETE_PKT_CCNT_F1: case TRAWL_ETE_PKT_CCNT_F2: case TRAWL_ETE_PKT_CCNT_F3:
		/* format 1's U bit: cycles passed but their number is unknown
		 * (after an overflow, say); still an element, value 1 */
		emit_simple(f, TRAWL_ETE_EL_CYCLE_COUNT, p->offset,
			    (p->flags & TRAWL_ETE_PF_HAS_CC) ? 0 : 1,
			    (p->flags & TRAWL_ETE_PF_HAS_CC) ? p->cc : 0);
		break;
	case TRAWL_ETE_PKT_EVENT:
		emit_simple(f, TRAWL_ETE_EL_EVENT, p->offset, 0, p->count);
		break;
	case TRAWL_ETE_PKT_TS_MARKER:
		emit_simple(f, TRAWL_ETE_EL_SYNC_MARKER, p->offset, 0, 0);
		break;
	case TRAWL_ETE_PKT_ITE:
		emit_simple(f, TRAWL_ETE_EL_INSTRUMENTATION, p->offset, p->value, p->ite_el);
		break;
	case TRAWL_ETE_PKT_TRANS_ST:
		emit_simple(f, TRAWL_ETE_EL_MEMTRANS, p->offset, 0, TRAWL_ETE_TRANS_START);
		break;
	case TRAWL_ETE_PKT_TRANS_COMMIT:
		emit_simple(f, TRAWL_ETE_EL_MEMTRANS, p->offset, 0, TRAWL_ETE_TRANS_COMMIT);
		break;
	case TRAWL_ETE_PKT_EXCEPT_RTN:
		/* ETMv4 marks each return with this packet; ETE has none, so
		 * there the eret instruction itself gives the element */
		emit_simple(f, TRAWL_ETE_EL_EXC_RET, p->offset, 0, 0);
		break;
	default:
		break;
	}
}

/* How many P0 elements a packet holds. Transaction Start is one unless
 * TRCIDR0.COMMTRANS (bit 30) says otherwise. */
static int is_p0(const struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	switch (p->type) {
	case TRAWL_ETE_PKT_TRANS_ST:
		return f->cfg.is_ete && !(f->cfg.idr0 & (1u << 30));
	case TRAWL_ETE_PKT_ATOM_F1: case TRAWL_ETE_PKT_ATOM_F2: case TRAWL_ETE_PKT_ATOM_F3:
	case TRAWL_ETE_PKT_ATOM_F4: case TRAWL_ETE_PKT_ATOM_F5: case TRAWL_ETE_PKT_ATOM_F6:
		return p->natoms;
	case TRAWL_ETE_PKT_EXCEPT: case TRAWL_ETE_PKT_PE_RESET: case TRAWL_ETE_PKT_TRANS_FAIL:
	case TRAWL_ETE_PKT_Q: case TRAWL_ETE_PKT_SRC_ADDR_MATCH: case TRAWL_ETE_PKT_SRC_ADDR_S_IS0:
	case TRAWL_ETE_PKT_SRC_ADDR_S_IS1: case TRAWL_ETE_PKT_SRC_ADDR_L_32IS0:
	case TRAWL_ETE_PKT_SRC_ADDR_L_32IS1: case TRAWL_ETE_PKT_SRC_ADDR_L_64IS0:
	case TRAWL_ETE_PKT_SRC_ADDR_L_64IS1:
		return 1;
	default:
		return 0;
	}
}

/* End of a stretch of trace: report the non-speculative packets still
 * queued ahead of the first held P0 element; the speculative rest was
 * never committed, so it is dropped. */
static void settle_eot(struct trawl_ete_flow *f)
{
	while (f->qlen && f->q[f->qhead].p0 == 0) {
		process(f, &f->q[f->qhead].pkt);
		f->qhead = (f->qhead + 1) % f->qcap;
		f->qlen--;
	}
	f->qlen = 0;
	f->qhead = 0;
	f->uncommitted = 0;
	if (f->fail_pending)
		flush_fail(f);
}

static void reset_flow(struct trawl_ete_flow *f)
{
	if (f->fail_pending)
		flush_fail(f);
	f->qlen = 0;
	f->qhead = 0;
	f->uncommitted = 0;
	f->pc_valid = 0;
	f->exc_pending = 0;
	f->rs_n = 0;
	f->rs_pending = 0;
}

/* A periodic sync point in a stream already followed changes nothing
 * known (address, context, held elements) but the return stack; the first
 * one, or one after an error, starts from a clean state. */
static void on_trace_info(struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	if (f->synced) {
		f->rs_n = 0;
		f->rs_pending = 0;
		return;
	}
	settle_eot(f);
	reset_flow(f);
	f->synced = 1;
	/* INFO bit 6 (TSTATE): tracing starts inside a transaction */
	if (f->cfg.is_ete && (p->tinfo_sections & 1) && (p->value & 0x40))
		emit_simple(f, TRAWL_ETE_EL_MEMTRANS, p->offset, 0, TRAWL_ETE_TRANS_INIT);
}

/* Every decoded packet enters here, so the order of the tests is the order
 * of precedence: a pending exception takes the next address packet first,
 * then nothing is decoded until a Trace Info gives a known state, then the
 * packets that break the flow settle what was committed and reset. The rest
 * is handled at once or queued behind speculation, by is_p0. */
static void on_packet(struct trawl_ete_flow *f, const struct trawl_ete_packet *p)
{
	/* an exception takes the address packet that follows it */
	if (f->exc_pending && (p->flags & TRAWL_ETE_PF_HAS_ADDR) &&
	    p->type != TRAWL_ETE_PKT_Q && p->type < TRAWL_ETE_PKT_SRC_ADDR_MATCH) {
		struct trawl_ete_packet e = f->exc;
		e.addr = p->addr;
		e.is = p->is;
		e.flags |= TRAWL_ETE_PF_HAS_ADDR | (p->flags & TRAWL_ETE_PF_HAS_CTX);
		e.ctx = p->ctx;
		f->exc_pending = 0;
		if (f->qlen)
			q_push(f, &e, 1);
		else {
			q_push(f, &e, 1);
		}
		/* the address is also where execution resumes */
		struct trawl_ete_packet a = *p;
		a.flags &= (uint8_t)~TRAWL_ETE_PF_HAS_CTX;
		if (p->type >= TRAWL_ETE_PKT_ADDR_CTXT_L_32IS0 && p->type <= TRAWL_ETE_PKT_ADDR_CTXT_L_64IS1)
			a.type = TRAWL_ETE_PKT_ADDR_L_64IS0 + (p->is ? 1 : 0);
		(void)a;
		goto settle;
	}
	/* without a Trace Info since the start or the last bad packet the
	 * state (addresses, speculation) is unknown: wait for one */
	if (!f->synced && p->type != TRAWL_ETE_PKT_TRACE_INFO && p->type != TRAWL_ETE_PKT_BAD &&
	    p->type != TRAWL_ETE_PKT_INCOMPLETE)
		return;
	switch (p->type) {
	case TRAWL_ETE_PKT_NOTSYNC:
		return;
	case TRAWL_ETE_PKT_BAD: case TRAWL_ETE_PKT_INCOMPLETE:
		settle_eot(f);
		emit_simple(f, TRAWL_ETE_EL_BAD, p->offset, p->header, p->count);
		reset_flow(f);
		f->synced = 0;
		return;
	case TRAWL_ETE_PKT_ASYNC: case TRAWL_ETE_PKT_IGNORE:
		return;
	case TRAWL_ETE_PKT_TRACE_INFO:
		on_trace_info(f, p);
		return;
	case TRAWL_ETE_PKT_OVERFLOW: case TRAWL_ETE_PKT_DISCARD:
		settle_eot(f);
		emit_simple(f, p->type == TRAWL_ETE_PKT_OVERFLOW ? TRAWL_ETE_EL_OVERFLOW
								  : TRAWL_ETE_EL_DISCARD,
			    p->offset, 0, 0);
		reset_flow(f);
		return;
	case TRAWL_ETE_PKT_EXCEPT: case TRAWL_ETE_PKT_PE_RESET:
		f->exc_pending = 1;
		f->exc = *p;
		return;
	case TRAWL_ETE_PKT_TRANS_FAIL:
		q_push(f, p, 1);
		goto settle;
	case TRAWL_ETE_PKT_COMMIT:
		commit(f, p->count);
		return;
	case TRAWL_ETE_PKT_CANCEL_F1:
		cancel(f, p->count);
		return;
	case TRAWL_ETE_PKT_CANCEL_F1_MISPRED:
		cancel(f, p->count);
		mispredict(f);
		return;
	case TRAWL_ETE_PKT_MISPREDICT:
		mispredict(f);
		if (p->natoms)
			q_push(f, p, p->natoms);
		goto settle;
	case TRAWL_ETE_PKT_CANCEL_F2: case TRAWL_ETE_PKT_CANCEL_F3:
		/* formats 2 and 3 imply a mispredict: cancel, flip the newest
		 * atom left, then the packet's own atoms */
		cancel(f, p->count);
		mispredict(f);
		if (p->natoms)
			q_push(f, p, p->natoms);
		goto settle;
	case TRAWL_ETE_PKT_CCNT_F1: case TRAWL_ETE_PKT_CCNT_F2: case TRAWL_ETE_PKT_CCNT_F3:
		if (p->flags & TRAWL_ETE_PF_HAS_COMMIT)
			commit(f, p->commit);
		break;
	default:
		break;
	}
	{
		int n = is_p0(f, p);
		/* nothing held and nothing to hold: handle it now (the usual case
		 * without speculation, TRCIDR8.MAXSPEC = 0) */
		if (f->qlen == 0 && (n == 0 || f->cfg.max_spec == 0))
			process(f, p);
		else
			q_push(f, p, (uint32_t)n);
	}
settle:
	if (f->uncommitted > f->cfg.max_spec)
		commit(f, f->uncommitted - f->cfg.max_spec);
}

/* Packets on_packet would hand straight to process in the usual state (in
 * sync, no exception, failure or speculation waiting): taken here without
 * its tests. Indexed by packet type. */
enum { FP_NONE, FP_ATOM, FP_ADDR, FP_CC };
static const uint8_t fast_pkt[TRAWL_ETE_PKT_COUNT_] = {
	[TRAWL_ETE_PKT_ATOM_F1] = FP_ATOM, [TRAWL_ETE_PKT_ATOM_F2] = FP_ATOM,
	[TRAWL_ETE_PKT_ATOM_F3] = FP_ATOM, [TRAWL_ETE_PKT_ATOM_F4] = FP_ATOM,
	[TRAWL_ETE_PKT_ATOM_F5] = FP_ATOM, [TRAWL_ETE_PKT_ATOM_F6] = FP_ATOM,
	[TRAWL_ETE_PKT_ADDR_MATCH] = FP_ADDR, [TRAWL_ETE_PKT_ADDR_S_IS0] = FP_ADDR,
	[TRAWL_ETE_PKT_ADDR_S_IS1] = FP_ADDR, [TRAWL_ETE_PKT_ADDR_L_32IS0] = FP_ADDR,
	[TRAWL_ETE_PKT_ADDR_L_32IS1] = FP_ADDR, [TRAWL_ETE_PKT_ADDR_L_64IS0] = FP_ADDR,
	[TRAWL_ETE_PKT_ADDR_L_64IS1] = FP_ADDR,
	[TRAWL_ETE_PKT_CCNT_F1] = FP_CC, [TRAWL_ETE_PKT_CCNT_F2] = FP_CC,
	[TRAWL_ETE_PKT_CCNT_F3] = FP_CC,
};

/* The usual state: what on_packet tests before it would reach process.
 * Atoms also need no speculation (else they are queued). */
static inline int plain_state(const struct trawl_ete_flow *f)
{
	return f->synced && !f->exc_pending && !f->fail_pending && !f->qlen && !f->generic;
}

/* The image changed since the blocks were walked (a region was added
 * between two batches): forget them all. */
static void check_image(struct trawl_ete_flow *f)
{
	uint64_t g = trawl_ete_image_generation(f->img);
	if (g == f->img_gen)
		return;
	f->img_gen = g;
	f->nblocks = 0;
	memset(f->ht, 0, f->hcap * sizeof *f->ht);
	f->cur = -1;
}

void trawl_ete_flow_packets(void *flow, const struct trawl_ete_packet *pkts, size_t n)
{
	struct trawl_ete_flow *f = flow;
	size_t i = 0;
	check_image(f);
	while (i < n) {
		/* none of the packets taken here changes the plain state, so a
		 * run of them is tested once */
		if (plain_state(f)) {
			unsigned atoms = f->cfg.max_spec == 0 ? FP_ATOM : FP_NONE;
			for (; i < n; i++) {
				const struct trawl_ete_packet *p = &pkts[i];
				unsigned c = p->type < TRAWL_ETE_PKT_COUNT_ ? fast_pkt[p->type] : FP_NONE;
				if (c == atoms && c != FP_NONE) {
					do_atoms(f, p->atoms, p->natoms, p->offset);
				} else if (c == FP_ADDR) {
					set_addr(f, p->addr, p->is);
				} else if (c == FP_CC) { /* a commit count has nothing to release */
					emit_simple(f, TRAWL_ETE_EL_CYCLE_COUNT, p->offset,
						    (p->flags & TRAWL_ETE_PF_HAS_CC) ? 0 : 1,
						    (p->flags & TRAWL_ETE_PF_HAS_CC) ? p->cc : 0);
				} else {
					break;
				}
			}
			if (i == n)
				break;
		}
		on_packet(f, &pkts[i++]);
	}
}

void trawl_ete_flow_set_generic(struct trawl_ete_flow *f, int on)
{
	f->generic = on != 0;
	f->cur = -1;
}

void trawl_ete_flow_finish(struct trawl_ete_flow *f)
{
	check_image(f);
	settle_eot(f);
	emit_simple(f, TRAWL_ETE_EL_END, 0, 0, 0);
	reset_flow(f);
}
