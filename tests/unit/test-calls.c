/* Call detection on hand-built event batches whose call trees are worked
 * out by hand in the comments (A64, A32, Thumb, exceptions, a trace that
 * starts inside a function, longjmp-style unwinding, a BL that only reads
 * the PC, tail calls, two CPUs), plus the branch decoder on encodings
 * checked against the Arm ARM and the corpus traces' disassembly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/calls.h"

/* ---- a tiny batch builder ------------------------------------------------ */

struct tb {
	struct trawl_event ev[128];
	struct trawl_reg_write regs[128];
	uint8_t pool[4096];
	size_t nev, nreg, npool;
	uint16_t cpu;
};

static struct trawl_event *add_ev(struct tb *t, uint16_t kind)
{
	assert_true(t->nev < 128);
	struct trawl_event *e = &t->ev[t->nev];
	memset(e, 0, sizeof *e);
	e->seq = t->nev;
	e->line = t->nev + 1;
	e->nlines = 1;
	e->kind = kind;
	e->time = t->nev + 1;
	e->time_unit = TRAWL_TIME_CLK;
	e->cpu = t->cpu;
	e->first_reg = (uint32_t)t->nreg;
	t->nev++;
	return e;
}

static void insn(struct tb *t, uint64_t pc, uint32_t enc, uint8_t iset, uint8_t width)
{
	struct trawl_event *e = add_ev(t, TRAWL_EV_INSN);
	e->flags = TRAWL_EVF_HAS_ENCODING;
	e->u.insn.pc = pc;
	e->u.insn.encoding = enc;
	e->u.insn.iset = iset;
	e->u.insn.width = width;
}

static void a64(struct tb *t, uint64_t pc, uint32_t enc)
{
	insn(t, pc, enc, TRAWL_ISET_A64, 4);
}

/* a register write attached to the last event */
static void reg(struct tb *t, uint32_t r, uint64_t v)
{
	struct trawl_reg_write *w = &t->regs[t->nreg++];
	memset(w, 0, sizeof *w);
	w->reg = r;
	w->size = 8;
	w->value = (uint32_t)t->npool;
	w->known = TRAWL_ALL_KNOWN;
	for (int i = 0; i < 8; i++)
		t->pool[t->npool++] = (uint8_t)(v >> (8 * i));
	t->ev[t->nev - 1].nregs++;
}

static void state(struct tb *t)
{
	add_ev(t, TRAWL_EV_STATE);
}

static void exception(struct tb *t, const char *name)
{
	struct trawl_event *e = add_ev(t, TRAWL_EV_EXCEPTION);
	e->u.exc.name.ptr = name;
	e->u.exc.name.len = (uint32_t)strlen(name);
	e->flags |= trawl_exception_flags(name, strlen(name)); /* as readers do */
}

static struct trawl_event_batch batch(const struct tb *t)
{
	struct trawl_event_batch b = { .events = t->ev, .count = t->nev, .regs = t->regs,
				       .pool = t->pool };
	return b;
}

#define NOP64 0xd503201fu
#define RET64 0xd65f03c0u
#define ERET64 0xd69f03e0u
#define SP TRAWL_REG_SP
#define X30 (TRAWL_REG_X0 + 30)
#define X14 (TRAWL_REG_X0 + 14)

static uint32_t bl64(uint64_t pc, uint64_t to)
{
	return 0x94000000u | (uint32_t)(((to - pc) / 4) & 0x03FFFFFFu);
}

static struct trawl_calls *run(const struct tb *t, struct trawl_calls_options *opt)
{
	struct trawl_calls *c;
	struct trawl_event_batch b = batch(t);
	assert_int_equal(trawl_calls_create(&c, opt, NULL), TRAWL_OK);
	assert_int_equal(trawl_calls_add(c, &b, NULL), TRAWL_OK);
	trawl_calls_finish(c);
	return c;
}

static const struct trawl_call *node(const struct trawl_calls *c, uint32_t id)
{
	size_t n;
	const struct trawl_call *all = trawl_calls_nodes(c, &n);
	assert_true(id < n);
	return &all[id];
}

/* n-th child (0-based) of a node */
static const struct trawl_call *child(const struct trawl_calls *c, const struct trawl_call *p,
				      int k)
{
	uint32_t id = p->first_child;
	while (k-- > 0) {
		assert_int_not_equal(id, TRAWL_CALL_NONE);
		id = node(c, id)->next;
	}
	assert_int_not_equal(id, TRAWL_CALL_NONE);
	return node(c, id);
}

static int nchildren(const struct trawl_calls *c, const struct trawl_call *p)
{
	int k = 0;
	for (uint32_t id = p->first_child; id != TRAWL_CALL_NONE; id = node(c, id)->next)
		k++;
	return k;
}

static const struct trawl_call *root(const struct trawl_calls *c, unsigned cpu)
{
	uint32_t r = trawl_calls_first_root(c, cpu);
	assert_int_not_equal(r, TRAWL_CALL_NONE);
	return node(c, r);
}

/* ---- scenarios ------------------------------------------------------------ */

/* main calls f, f calls g, both return with RET; main calls g again by BLR.
 *   main 0x1000 {f 0x2000 {g 0x3000}, g 0x3000}
 * instructions: 11 in all; main's own 1000,1004,1008,100c = 4; f = 5 incl
 * (2000,2004,3000,3004,2008), 3 self; each g = 2. */
static void build_basic(struct tb *t)
{
	state(t);
	reg(t, SP, 0x8000);
	a64(t, 0x1000, NOP64);
	a64(t, 0x1004, bl64(0x1004, 0x2000));
	reg(t, X30, 0x1008);
	a64(t, 0x2000, NOP64);
	a64(t, 0x2004, bl64(0x2004, 0x3000));
	reg(t, X30, 0x2008);
	a64(t, 0x3000, NOP64);
	a64(t, 0x3004, RET64);
	a64(t, 0x2008, RET64);
	reg(t, X30, 0x1008); /* reloaded from the stack in real code */
	a64(t, 0x1008, 0xd63f0020u); /* BLR x1 */
	reg(t, X30, 0x100c);
	a64(t, 0x3000, NOP64);
	a64(t, 0x3004, RET64);
	a64(t, 0x100c, NOP64);
}

static void a64_basic(void **state_)
{
	struct tb t = { 0 };
	build_basic(&t);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *m = root(c, 0);
	assert_int_equal(m->kind, TRAWL_FRAME_ROOT);
	assert_int_equal(m->entry_pc, 0x1000);
	assert_int_equal(m->insns, 11);
	assert_int_equal(m->self, 4);
	assert_true(m->flags & TRAWL_FRAMEF_UNFINISHED);
	assert_int_equal(m->next, TRAWL_CALL_NONE);
	assert_int_equal(nchildren(c, m), 2);
	const struct trawl_call *f = child(c, m, 0);
	assert_int_equal(f->entry_pc, 0x2000);
	assert_int_equal(f->call_pc, 0x1004);
	assert_int_equal(f->call_line, 3);
	assert_int_equal(f->first_line, 4);
	assert_int_equal(f->last_line, 8);
	assert_int_equal(f->end_time, 9); /* the instruction control returned to */
	assert_int_equal(f->insns, 5);
	assert_int_equal(f->self, 3);
	assert_true(f->flags & TRAWL_FRAMEF_RETURNED);
	assert_int_equal(nchildren(c, f), 1);
	const struct trawl_call *g1 = child(c, f, 0);
	assert_int_equal(g1->entry_pc, 0x3000);
	assert_int_equal(g1->insns, 2);
	const struct trawl_call *g2 = child(c, m, 1);
	assert_int_equal(g2->entry_pc, 0x3000);
	assert_int_equal(g2->call_pc, 0x1008);
	assert_int_equal(g2->insns, 2);
	assert_true(g2->flags & TRAWL_FRAMEF_RETURNED);
	const struct trawl_calls_stats *s = trawl_calls_stats(c);
	assert_int_equal(s->calls, 3);
	assert_int_equal(s->returns, 3);
	assert_int_equal(s->insns, 11);

	/* profile: g called twice, 4 instructions; main 11 inclusive */
	struct trawl_profile p;
	assert_int_equal(trawl_profile_build(&p, c, NULL), TRAWL_OK);
	trawl_profile_sort(&p, TRAWL_PROFILE_BY_NAME);
	assert_int_equal(p.count, 3);
	assert_int_equal(p.total_insns, 11);
	assert_string_equal(p.entries[0].name, "0x1000");
	assert_int_equal(p.entries[0].incl_insns, 11);
	assert_int_equal(p.entries[0].self_insns, 4);
	assert_string_equal(p.entries[1].name, "0x2000");
	assert_int_equal(p.entries[1].calls, 1);
	assert_int_equal(p.entries[1].incl_insns, 5);
	assert_int_equal(p.entries[1].self_insns, 3);
	assert_string_equal(p.entries[2].name, "0x3000");
	assert_int_equal(p.entries[2].calls, 2);
	assert_int_equal(p.entries[2].incl_insns, 4);
	assert_int_equal(p.entries[2].self_insns, 4);
	/* times: f runs from t=4 to t=9 (5), its g from 6 to 8 (2) */
	assert_int_equal(p.entries[1].incl_time, 5);
	assert_int_equal(p.entries[1].self_time, 3);
	trawl_profile_release(&p);

	/* folded stacks */
	struct trawl_cct t2;
	assert_int_equal(trawl_cct_build(&t2, c, NULL), TRAWL_OK);
	char *buf = NULL;
	size_t len = 0;
	FILE *f2 = open_memstream(&buf, &len);
	assert_int_equal(trawl_cct_write_folded(&t2, f2, NULL), TRAWL_OK);
	fclose(f2);
	assert_string_equal(buf, "0x1000 4\n"
				 "0x1000;0x2000 3\n"
				 "0x1000;0x2000;0x3000 2\n"
				 "0x1000;0x3000 2\n");
	free(buf);
	trawl_cct_release(&t2);
	trawl_calls_destroy(c);
}

/* A32: BL + PUSH {r4,lr} / BL / BX lr / POP {r4,pc}, then MOV lr,pc; BX r1.
 *   root 0x100 {0x200 {0x300}, 0x300 [linkless]} */
static void a32_calls(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	insn(&t, 0x100, 0xe1a00000u, TRAWL_ISET_A32, 4);      /* NOP (mov r0,r0) */
	insn(&t, 0x104, 0xeb00003du, TRAWL_ISET_A32, 4);      /* BL 0x200 */
	reg(&t, X14, 0x108);
	insn(&t, 0x200, 0xe92d4010u, TRAWL_ISET_A32, 4);      /* PUSH {r4,lr} */
	reg(&t, SP, 0x7ff8);
	insn(&t, 0x204, 0xeb00003du, TRAWL_ISET_A32, 4);      /* BL 0x300 */
	reg(&t, X14, 0x208);
	insn(&t, 0x300, 0xe12fff1eu, TRAWL_ISET_A32, 4);      /* BX lr */
	insn(&t, 0x208, 0xe8bd8010u, TRAWL_ISET_A32, 4);      /* POP {r4,pc} */
	reg(&t, SP, 0x8000);
	insn(&t, 0x108, 0xe1a0e00fu, TRAWL_ISET_A32, 4);      /* MOV lr,pc */
	reg(&t, X14, 0x110);
	insn(&t, 0x10c, 0xe12fff11u, TRAWL_ISET_A32, 4);      /* BX r1 */
	insn(&t, 0x300, 0xe12fff1eu, TRAWL_ISET_A32, 4);      /* BX lr */
	insn(&t, 0x110, 0xe1a00000u, TRAWL_ISET_A32, 4);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(r->insns, 10);
	assert_int_equal(r->self, 5);
	assert_int_equal(nchildren(c, r), 2);
	const struct trawl_call *f = child(c, r, 0);
	assert_int_equal(f->entry_pc, 0x200);
	assert_int_equal(f->insns, 4);
	assert_int_equal(f->self, 3);
	assert_int_equal(f->sp, 0x8000);
	assert_true(f->flags & TRAWL_FRAMEF_RETURNED);
	assert_int_equal(nchildren(c, f), 1);
	assert_int_equal(child(c, f, 0)->entry_pc, 0x300);
	assert_true(child(c, f, 0)->flags & TRAWL_FRAMEF_RETURNED);
	const struct trawl_call *g = child(c, r, 1);
	assert_int_equal(g->entry_pc, 0x300);
	assert_int_equal(g->ret_addr, 0x110);
	assert_true(g->flags & TRAWL_FRAMEF_LINKLESS);
	assert_true(g->flags & TRAWL_FRAMEF_RETURNED);
	trawl_calls_destroy(c);
}

/* Thumb: BL (32-bit), PUSH {r7,lr}, BLX r3, BX lr, POP {r7,pc}.
 *   root 0x400 {0x500 {0x600}} */
static void thumb_calls(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	insn(&t, 0x400, 0xbf00u, TRAWL_ISET_T32, 2);
	insn(&t, 0x402, 0xf000f87du, TRAWL_ISET_T32, 4);     /* BL 0x500 */
	reg(&t, X14, 0x407);
	insn(&t, 0x500, 0xb580u, TRAWL_ISET_T32, 2);         /* PUSH {r7,lr} */
	reg(&t, SP, 0x7ff8);
	insn(&t, 0x502, 0x4798u, TRAWL_ISET_T32, 2);         /* BLX r3 */
	reg(&t, X14, 0x505);
	insn(&t, 0x600, 0x4770u, TRAWL_ISET_T32, 2);         /* BX lr */
	insn(&t, 0x504, 0xbd80u, TRAWL_ISET_T32, 2);         /* POP {r7,pc} */
	reg(&t, SP, 0x8000);
	insn(&t, 0x406, 0xbf00u, TRAWL_ISET_T32, 2);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(r->insns, 7);
	assert_int_equal(r->self, 3);
	const struct trawl_call *f = child(c, r, 0);
	assert_int_equal(f->entry_pc, 0x500);
	assert_int_equal(f->ret_addr, 0x406);
	assert_int_equal(f->insns, 4);
	assert_true(f->flags & TRAWL_FRAMEF_RETURNED);
	const struct trawl_call *g = child(c, f, 0);
	assert_int_equal(g->entry_pc, 0x600);
	assert_int_equal(g->ret_addr, 0x504);
	assert_true(g->flags & TRAWL_FRAMEF_RETURNED);
	assert_int_equal(trawl_calls_stats(c)->linkless_calls, 0);
	trawl_calls_destroy(c);
}

/* An IRQ inside f, whose handler calls h and returns with ERET; f then
 * returns normally (SP restored from before the exception).
 *   root 0x1000 {f 0x2000 {[IRQ] {h 0x5000}}} ; f = 7 insns, 3 self */
static void exceptions(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	a64(&t, 0x1000, NOP64);
	a64(&t, 0x1004, bl64(0x1004, 0x2000));
	reg(&t, X30, 0x1008);
	a64(&t, 0x2000, NOP64);
	exception(&t, "IRQ");
	a64(&t, 0x4000, NOP64);
	reg(&t, SP, 0x9000); /* SP_EL1 */
	a64(&t, 0x4004, bl64(0x4004, 0x5000));
	reg(&t, X30, 0x4008);
	a64(&t, 0x5000, RET64);
	a64(&t, 0x4008, ERET64);
	reg(&t, X30, 0x1008);
	a64(&t, 0x2004, NOP64);
	a64(&t, 0x2008, RET64);
	a64(&t, 0x1008, NOP64);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(r->insns, 10);
	assert_int_equal(nchildren(c, r), 1);
	const struct trawl_call *f = child(c, r, 0);
	assert_int_equal(f->insns, 7);
	assert_int_equal(f->self, 3);
	assert_true(f->flags & TRAWL_FRAMEF_RETURNED);
	const struct trawl_call *x = child(c, f, 0);
	assert_int_equal(x->kind, TRAWL_FRAME_EXCEPTION);
	assert_int_equal(x->entry_pc, 0x4000);
	assert_int_equal(x->insns, 4);
	assert_int_equal(x->self, 3);
	assert_true(x->flags & TRAWL_FRAMEF_RETURNED);
	char name[64];
	assert_string_equal(trawl_calls_name(c, x, name, sizeof name), "[IRQ]");
	assert_int_equal(child(c, x, 0)->entry_pc, 0x5000);
	assert_int_equal(trawl_calls_stats(c)->exc_returns, 1);

	/* a reset ends everything; the next instruction starts a new root */
	struct tb t2 = { 0 };
	a64(&t2, 0x1000, NOP64);
	a64(&t2, 0x1004, bl64(0x1004, 0x2000));
	a64(&t2, 0x2000, NOP64);
	exception(&t2, "CoreEvent_RESET");
	a64(&t2, 0x0, NOP64);
	trawl_calls_destroy(c);
	c = run(&t2, NULL);
	r = root(c, 0);
	assert_true(r->flags & TRAWL_FRAMEF_UNWOUND);
	assert_true(child(c, r, 0)->flags & TRAWL_FRAMEF_UNWOUND);
	assert_int_not_equal(r->next, TRAWL_CALL_NONE);
	assert_int_equal(node(c, r->next)->entry_pc, 0);
	assert_int_equal(node(c, r->next)->insns, 1);
	trawl_calls_destroy(c);
}

/* M-profile: no ERET; the handler returns with POP {pc} (an EXC_RETURN
 * value), which must end the exception frame.
 *   root 0x100 {[IRQ] {0x300}} then the root continues at 0x104 */
static void mprofile_exception(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	insn(&t, 0x100, 0xbf00u, TRAWL_ISET_T32, 2);
	exception(&t, "IRQ");
	insn(&t, 0x200, 0xb500u, TRAWL_ISET_T32, 2);          /* PUSH {lr} */
	reg(&t, SP, 0x7fdc);
	insn(&t, 0x202, 0xf000f87du, TRAWL_ISET_T32, 4);     /* BL 0x300 */
	reg(&t, X14, 0x207);
	insn(&t, 0x300, 0x4770u, TRAWL_ISET_T32, 2);         /* BX lr */
	insn(&t, 0x206, 0xbd00u, TRAWL_ISET_T32, 2);         /* POP {pc} = EXC_RETURN */
	reg(&t, SP, 0x8000);
	insn(&t, 0x102, 0xbf00u, TRAWL_ISET_T32, 2);
	insn(&t, 0x104, 0xbf00u, TRAWL_ISET_T32, 2);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(r->insns, 7);
	assert_int_equal(r->self, 3);
	assert_int_equal(nchildren(c, r), 1);
	const struct trawl_call *x = child(c, r, 0);
	assert_int_equal(x->kind, TRAWL_FRAME_EXCEPTION);
	assert_true(x->flags & TRAWL_FRAMEF_RETURNED);
	assert_int_equal(x->insns, 4);
	assert_int_equal(child(c, x, 0)->entry_pc, 0x300);
	trawl_calls_destroy(c);
}

/* The trace starts inside f (its return address in x30): f's RET goes
 * past the first frame, so a new root (the caller) appears above it.
 *   R 0x1008 {f 0x2000 [before], 0x3000} ; R = 6 insns, 3 self, from line 2 */
static void starts_inside(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	reg(&t, X30, 0x1008);
	a64(&t, 0x2000, NOP64);
	a64(&t, 0x2004, RET64);
	a64(&t, 0x1008, NOP64);
	a64(&t, 0x100c, bl64(0x100c, 0x3000));
	reg(&t, X30, 0x1010);
	a64(&t, 0x3000, RET64);
	a64(&t, 0x1010, NOP64);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(r->next, TRAWL_CALL_NONE);
	assert_int_equal(r->kind, TRAWL_FRAME_ROOT);
	assert_int_equal(r->entry_pc, 0x1008);
	assert_int_equal(r->first_line, 2); /* f's lines are part of its caller's */
	assert_int_equal(r->insns, 6);
	assert_int_equal(r->self, 3);
	assert_int_equal(nchildren(c, r), 2);
	const struct trawl_call *f = child(c, r, 0);
	assert_int_equal(f->entry_pc, 0x2000);
	assert_int_equal(f->kind, TRAWL_FRAME_CALL);
	assert_true(f->flags & TRAWL_FRAMEF_BEFORE);
	assert_int_equal(f->insns, 2);
	assert_int_equal(child(c, r, 1)->entry_pc, 0x3000);
	assert_int_equal(trawl_calls_stats(c)->reroots, 1);
	/* the depth-first walk sees f one level below the new root */
	trawl_calls_destroy(c);
}

/* longjmp: g jumps back into main with main's stack pointer; both f and g
 * are unwound.  root {f {g}} with f, g unwound; root self 3. */
static void sp_resync(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	a64(&t, 0x1000, NOP64);
	a64(&t, 0x1004, bl64(0x1004, 0x2000));
	reg(&t, X30, 0x1008);
	a64(&t, 0x2000, NOP64);
	reg(&t, SP, 0x7ff0);
	a64(&t, 0x2004, bl64(0x2004, 0x3000));
	reg(&t, X30, 0x2008);
	a64(&t, 0x3000, NOP64);
	reg(&t, SP, 0x7fe0);
	a64(&t, 0x3004, 0xd61f0040u); /* BR x2 */
	reg(&t, SP, 0x8010);
	a64(&t, 0x1100, NOP64);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(r->self, 3);
	const struct trawl_call *f = child(c, r, 0);
	assert_true(f->flags & TRAWL_FRAMEF_UNWOUND);
	assert_int_equal(f->insns, 4);
	const struct trawl_call *g = child(c, f, 0);
	assert_true(g->flags & TRAWL_FRAMEF_UNWOUND);
	assert_int_equal(trawl_calls_stats(c)->unwound, 2);
	trawl_calls_destroy(c);
}

/* A BL to the next instruction only reads the PC: it never returns, its
 * caller does, so it is folded into the caller.  root {f}, f self 3. */
static void fold_pc_read(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	a64(&t, 0x1000, NOP64);
	a64(&t, 0x1004, bl64(0x1004, 0x2000));
	reg(&t, X30, 0x1008);
	a64(&t, 0x2000, bl64(0x2000, 0x2004));
	reg(&t, X30, 0x2004);
	a64(&t, 0x2004, NOP64);
	reg(&t, X30, 0x1008);
	a64(&t, 0x2008, RET64);
	a64(&t, 0x1008, NOP64);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(nchildren(c, r), 1);
	const struct trawl_call *f = child(c, r, 0);
	assert_int_equal(f->self, 3);
	assert_int_equal(f->insns, 3);
	assert_int_equal(nchildren(c, f), 0);
	assert_int_equal(trawl_calls_stats(c)->folded, 1);
	trawl_calls_destroy(c);
}

/* f (0x2100) ends with BR x1 to g at 0x2000, below its own entry, with its
 * frame torn down: a tail call; g's RET ends both.  root {f {g [tail]}} */
static void tail_call(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	a64(&t, 0x1000, NOP64);
	a64(&t, 0x1004, bl64(0x1004, 0x2100));
	reg(&t, X30, 0x1008);
	a64(&t, 0x2100, 0xd61f0020u); /* BR x1 */
	a64(&t, 0x2000, RET64);
	a64(&t, 0x1008, NOP64);
	struct trawl_calls *c = run(&t, NULL);
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(nchildren(c, r), 1);
	const struct trawl_call *f = child(c, r, 0);
	assert_int_equal(f->entry_pc, 0x2100);
	assert_int_equal(f->insns, 2);
	assert_true(f->flags & TRAWL_FRAMEF_RETURNED);
	const struct trawl_call *g = child(c, f, 0);
	assert_int_equal(g->kind, TRAWL_FRAME_TAIL);
	assert_int_equal(g->entry_pc, 0x2000);
	assert_true(g->flags & TRAWL_FRAMEF_RETURNED);
	assert_int_equal(r->self, 3);
	assert_int_equal(trawl_calls_stats(c)->tail_calls, 1);
	trawl_calls_destroy(c);
}

/* Two CPUs interleaved keep separate stacks. */
static void two_cpus(void **state_)
{
	struct tb t = { 0 };
	t.cpu = 0;
	a64(&t, 0x1000, NOP64);
	a64(&t, 0x1004, bl64(0x1004, 0x2000));
	reg(&t, X30, 0x1008);
	t.cpu = 1;
	a64(&t, 0x1000, NOP64);
	t.cpu = 0;
	a64(&t, 0x2000, RET64);
	t.cpu = 1;
	a64(&t, 0x1004, bl64(0x1004, 0x3000));
	reg(&t, X30, 0x1008);
	t.cpu = 0;
	a64(&t, 0x1008, NOP64);
	t.cpu = 1;
	a64(&t, 0x3000, NOP64);
	struct trawl_calls *c = run(&t, NULL);
	assert_int_equal(trawl_calls_cpus(c), 2);
	const struct trawl_call *r0 = root(c, 0), *r1 = root(c, 1);
	assert_int_equal(r0->insns, 4);
	assert_int_equal(child(c, r0, 0)->entry_pc, 0x2000);
	assert_true(child(c, r0, 0)->flags & TRAWL_FRAMEF_RETURNED);
	assert_int_equal(r1->insns, 3);
	assert_int_equal(child(c, r1, 0)->entry_pc, 0x3000);
	assert_int_equal(child(c, r1, 0)->cpu, 1);
	assert_true(child(c, r1, 0)->flags & TRAWL_FRAMEF_UNFINISHED);
	trawl_calls_destroy(c);
}

/* ---- runs of sequential instructions (trawl_calls_add's fast path) ------ */

/* Feed t's events as batches of at most `k` events (0: one batch). */
static struct trawl_calls *run_split(const struct tb *t, size_t k)
{
	struct trawl_calls *c;
	assert_int_equal(trawl_calls_create(&c, NULL, NULL), TRAWL_OK);
	for (size_t i = 0; i < t->nev;) {
		size_t n = k && t->nev - i > k ? k : t->nev - i;
		struct trawl_event_batch b = { .events = t->ev + i, .count = n, .regs = t->regs,
					       .pool = t->pool };
		assert_int_equal(trawl_calls_add(c, &b, NULL), TRAWL_OK);
		i += n;
	}
	trawl_calls_finish(c);
	return c;
}

/* A run broken by a taken branch and by a call, the callee's run ended by
 * its return:
 *   lines 2-4 0x1000-0x1008 (B 0x1010 at 0x1008), 5-6 0x1010-0x1014 (BL),
 *   7-9 f 0x2000-0x2008 (RET), 10-11 0x1018-0x101c
 * root: 9 instructions... counted by hand: 0x1000,1004,1008,1010,1014,1018,
 * 101c = 7 own, f 3: 10 in all. Checked for every way of cutting the events
 * into batches, so a batch boundary falls inside every run. */
static void check_runs(const struct trawl_calls *c)
{
	const struct trawl_call *r = root(c, 0);
	assert_int_equal(r->entry_pc, 0x1000);
	assert_int_equal(r->first_line, 2);
	assert_int_equal(r->insns, 10);
	assert_int_equal(r->self, 7);
	assert_int_equal(r->last_line, 11);
	assert_int_equal(r->last_time, 11);
	assert_int_equal(r->last_pc, 0x101c);
	assert_int_equal(nchildren(c, r), 1);
	const struct trawl_call *f = child(c, r, 0);
	assert_int_equal(f->entry_pc, 0x2000);
	assert_int_equal(f->call_pc, 0x1014);
	assert_int_equal(f->call_line, 6);
	assert_int_equal(f->ret_addr, 0x1018);
	assert_int_equal(f->first_line, 7);
	assert_int_equal(f->last_line, 9);
	assert_int_equal(f->last_pc, 0x2008);
	assert_int_equal(f->insns, 3);
	assert_int_equal(f->self, 3);
	assert_int_equal(f->end_time, 10);
	assert_true(f->flags & TRAWL_FRAMEF_RETURNED);
	const struct trawl_calls_stats *s = trawl_calls_stats(c);
	assert_int_equal(s->insns, 10);
	assert_int_equal(s->calls, 1);
	assert_int_equal(s->returns, 1);
	assert_int_equal(s->time_backwards, 0);
}

static void runs_and_batches(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	a64(&t, 0x1000, NOP64);
	a64(&t, 0x1004, NOP64);
	a64(&t, 0x1008, 0x14000002u); /* B 0x1010 */
	a64(&t, 0x1010, NOP64);
	a64(&t, 0x1014, bl64(0x1014, 0x2000));
	reg(&t, X30, 0x1018);
	a64(&t, 0x2000, NOP64);
	a64(&t, 0x2004, NOP64);
	a64(&t, 0x2008, RET64);
	a64(&t, 0x1018, NOP64);
	a64(&t, 0x101c, NOP64);
	for (size_t k = 0; k <= t.nev; k++) {
		struct trawl_calls *c = run_split(&t, k);
		check_runs(c);
		trawl_calls_destroy(c);
	}
}

/* The CPU changes inside a run: CPU 1's instruction at 0x1008 follows CPU 0's
 * 0x1004 in memory but starts CPU 1's own root, and CPU 0's run goes on
 * after it; CPU 3 appearing mid-batch (the per-CPU states grow) changes
 * nothing for CPU 0. */
static void runs_and_cpus(void **state_)
{
	struct tb t = { 0 };
	a64(&t, 0x1000, NOP64);
	a64(&t, 0x1004, NOP64);
	t.cpu = 1;
	a64(&t, 0x1008, NOP64);
	a64(&t, 0x100c, NOP64);
	t.cpu = 0;
	a64(&t, 0x1008, NOP64);
	t.cpu = 3;
	a64(&t, 0x5000, NOP64);
	t.cpu = 0;
	a64(&t, 0x100c, NOP64);
	a64(&t, 0x1010, NOP64);
	for (size_t k = 0; k <= t.nev; k++) {
		struct trawl_calls *c = run_split(&t, k);
		assert_int_equal(trawl_calls_cpus(c), 4);
		const struct trawl_call *r0 = root(c, 0), *r1 = root(c, 1), *r3 = root(c, 3);
		assert_int_equal(r0->entry_pc, 0x1000);
		assert_int_equal(r0->insns, 5);
		assert_int_equal(r0->self, 5);
		assert_int_equal(r0->last_line, 8);
		assert_int_equal(r0->last_pc, 0x1010);
		assert_int_equal(r1->entry_pc, 0x1008);
		assert_int_equal(r1->insns, 2);
		assert_int_equal(r1->first_line, 3);
		assert_int_equal(r1->last_line, 4);
		assert_int_equal(r3->entry_pc, 0x5000);
		assert_int_equal(r3->insns, 1);
		assert_int_equal(trawl_calls_first_root(c, 2), TRAWL_CALL_NONE);
		assert_int_equal(trawl_calls_stats(c)->insns, 8);
		trawl_calls_destroy(c);
	}
}

/* Instructions after which the next one in memory is still a transfer:
 * a BL to the next address opens a frame there (returning to itself), an
 * ERET whose target happens to follow it ends the exception frame. A
 * condition-failed BL (A32 BLEQ, flagged CCFAIL) and a condition-failed
 * B.cond are no transfer: their runs go on. */
static void runs_forced_transfers(void **state_)
{
	struct tb t = { 0 };
	state(&t);
	reg(&t, SP, 0x8000);
	a64(&t, 0x1000, NOP64);
	a64(&t, 0x1004, 0x94000001u);   /* BL 0x1008 */
	reg(&t, X30, 0x1008);
	a64(&t, 0x1008, NOP64);         /* line 4: the callee's entry */
	a64(&t, 0x100c, 0x54000060u);   /* B.EQ 0x1018, not taken */
	t.ev[t.nev - 1].flags |= TRAWL_EVF_CCFAIL;
	a64(&t, 0x1010, NOP64);
	exception(&t, "IRQ");           /* line 7 */
	a64(&t, 0x4000, NOP64);
	a64(&t, 0x4004, ERET64);
	a64(&t, 0x4008, NOP64);         /* line 10: back in the BL's frame */
	insn(&t, 0x400c, 0x0b000010u, TRAWL_ISET_A32, 4); /* BLEQ, condition failed */
	t.ev[t.nev - 1].flags |= TRAWL_EVF_CCFAIL;
	insn(&t, 0x4010, 0xe1a00000u, TRAWL_ISET_A32, 4); /* MOV r0,r0 */
	insn(&t, 0x4014, 0xe1a00000u, TRAWL_ISET_A32, 4);
	for (size_t k = 0; k <= t.nev; k++) {
		struct trawl_calls *c = run_split(&t, k);
		const struct trawl_call *r = root(c, 0);
		assert_int_equal(r->insns, 11);
		assert_int_equal(r->self, 2);
		assert_int_equal(nchildren(c, r), 1);
		const struct trawl_call *f = child(c, r, 0);
		assert_int_equal(f->kind, TRAWL_FRAME_CALL);
		assert_int_equal(f->entry_pc, 0x1008);
		assert_int_equal(f->call_pc, 0x1004);
		assert_int_equal(f->ret_addr, 0x1008);
		assert_int_equal(f->first_line, 4);
		/* 0x1008, 100c, 1010, then 4008, 400c, 4010, 4014 after the ERET */
		assert_int_equal(f->self, 7);
		assert_int_equal(f->insns, 9);
		assert_int_equal(f->last_line, 13);
		assert_int_equal(f->last_pc, 0x4014);
		assert_true(f->flags & TRAWL_FRAMEF_UNFINISHED);
		assert_int_equal(nchildren(c, f), 1);
		const struct trawl_call *x = child(c, f, 0);
		assert_int_equal(x->kind, TRAWL_FRAME_EXCEPTION);
		assert_int_equal(x->insns, 2);
		assert_int_equal(x->entry_pc, 0x4000);
		assert_true(x->flags & TRAWL_FRAMEF_RETURNED);
		const struct trawl_calls_stats *s = trawl_calls_stats(c);
		assert_int_equal(s->calls, 1);
		assert_int_equal(s->exceptions, 1);
		assert_int_equal(s->exc_returns, 1);
		assert_int_equal(s->insns, 11);
		trawl_calls_destroy(c);
	}
}

static int ndebug;
static void count_debug(void *ctx, const struct trawl_event *ev, const char *msg)
{
	(void)ctx;
	(void)ev;
	if (strstr(msg, "call from 0x1004 to 0x2000"))
		ndebug++;
}

static void debug_and_limits(void **state_)
{
	struct tb t = { 0 };
	build_basic(&t);
	struct trawl_calls_options opt = { .debug = count_debug };
	struct trawl_calls *c = run(&t, &opt);
	assert_int_equal(ndebug, 1);
	trawl_calls_destroy(c);

	opt.debug = NULL;
	opt.max_nodes = 2;
	struct trawl_event_batch b = batch(&t);
	struct trawl_error err;
	assert_int_equal(trawl_calls_create(&c, &opt, NULL), TRAWL_OK);
	assert_int_equal(trawl_calls_add(c, &b, &err), TRAWL_ERR_LIMIT);
	trawl_calls_destroy(c);
}

/* Encodings from the corpus traces' disassembly and the Arm ARM. */
static void branch_decode(void **state_)
{
	struct trawl_branch b;
	/* A64 */
	assert_int_equal(trawl_branch_decode(0x94000012u, 4, TRAWL_ISET_A64, 0x21012c, &b), TRAWL_BR_CALL);
	assert_int_equal(b.target, 0x210174);
	assert_int_equal(trawl_branch_decode(0x97fffffbu, 4, TRAWL_ISET_A64, 0x210188, &b), TRAWL_BR_CALL);
	assert_int_equal(b.target, 0x210174);
	assert_int_equal(trawl_branch_decode(0x14000008u, 4, TRAWL_ISET_A64, 0x210154, &b), TRAWL_BR_BRANCH);
	assert_int_equal(b.target, 0x210174);
	assert_int_equal(trawl_branch_decode(0x54000062u, 4, TRAWL_ISET_A64, 0x21014c, &b), TRAWL_BR_BRANCH);
	assert_int_equal(b.target, 0x210158);
	assert_int_equal(trawl_branch_decode(0xd63f0020u, 4, TRAWL_ISET_A64, 0, &b), TRAWL_BR_CALL);
	assert_int_equal(b.reg, 1);
	assert_int_equal(trawl_branch_decode(0xd61f0020u, 4, TRAWL_ISET_A64, 0, &b), TRAWL_BR_BRANCH);
	assert_int_equal(trawl_branch_decode(0xd65f03c0u, 4, TRAWL_ISET_A64, 0, &b), TRAWL_BR_RETURN);
	assert_int_equal(b.reg, 30);
	assert_int_equal(trawl_branch_decode(0xd69f03e0u, 4, TRAWL_ISET_A64, 0, &b), TRAWL_BR_EXC_RETURN);
	assert_int_equal(trawl_branch_decode(0xd4000001u, 4, TRAWL_ISET_A64, 0, &b), TRAWL_BR_EXC_CALL);
	assert_int_equal(trawl_branch_decode(0xd503201fu, 4, TRAWL_ISET_A64, 0, &b), TRAWL_BR_NONE);
	assert_int_equal(trawl_branch_decode(0x9b007c01u, 4, TRAWL_ISET_A64, 0, &b), TRAWL_BR_NONE);
	/* A32 (calltest32.tarmac) */
	assert_int_equal(trawl_branch_decode(0xeb000014u, 4, TRAWL_ISET_A32, 0x200c0, &b), TRAWL_BR_CALL);
	assert_int_equal(b.target, 0x20118);
	assert_int_equal(trawl_branch_decode(0xebfffff5u, 4, TRAWL_ISET_A32, 0x2013c, &b), TRAWL_BR_CALL);
	assert_int_equal(b.target, 0x20118);
	assert_int_equal(trawl_branch_decode(0xea000008u, 4, TRAWL_ISET_A32, 0x200f0, &b), TRAWL_BR_BRANCH);
	assert_int_equal(b.target, 0x20118);
	assert_int_equal(trawl_branch_decode(0xe12fff1eu, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_RETURN);
	assert_int_equal(trawl_branch_decode(0xe12fff31u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_CALL);
	assert_int_equal(trawl_branch_decode(0xe12fff11u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_BRANCH);
	assert_int_equal(trawl_branch_decode(0xe1a0f00eu, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_RETURN);
	assert_int_equal(trawl_branch_decode(0xe8bd8010u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_RETURN);
	assert_int_equal(trawl_branch_decode(0xe8bd4010u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_NONE);
	assert_int_equal(trawl_branch_decode(0xe49df004u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_RETURN); /* LDR pc,[sp],#4 */
	assert_int_equal(trawl_branch_decode(0xe25ef004u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_EXC_RETURN); /* SUBS pc,lr,#4 */
	assert_int_equal(trawl_branch_decode(0xe8fd8000u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_EXC_RETURN); /* LDM sp!,{pc}^ */
	assert_int_equal(trawl_branch_decode(0xef123456u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_EXC_CALL);
	assert_int_equal(trawl_branch_decode(0xe1a0e00fu, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_NONE); /* MOV lr,pc */
	assert_int_equal(trawl_branch_decode(0xe0010090u, 4, TRAWL_ISET_A32, 0, &b), TRAWL_BR_NONE); /* MUL */
	assert_int_equal(trawl_branch_decode(0xfa000000u, 4, TRAWL_ISET_A32, 0x1000, &b), TRAWL_BR_CALL); /* BLX imm */
	assert_int_equal(b.target, 0x1008);
	/* Thumb */
	assert_int_equal(trawl_branch_decode(0xf000f802u, 4, TRAWL_ISET_T32, 0x100, &b), TRAWL_BR_CALL);
	assert_int_equal(b.target, 0x108);
	assert_int_equal(trawl_branch_decode(0xf7fffffeu, 4, TRAWL_ISET_T32, 0x100, &b), TRAWL_BR_CALL);
	assert_int_equal(b.target, 0x100); /* BL to itself */
	assert_int_equal(trawl_branch_decode(0x4770u, 2, TRAWL_ISET_T32, 0, &b), TRAWL_BR_RETURN);
	assert_int_equal(trawl_branch_decode(0x4798u, 2, TRAWL_ISET_T32, 0, &b), TRAWL_BR_CALL);
	assert_int_equal(trawl_branch_decode(0x4718u, 2, TRAWL_ISET_T32, 0, &b), TRAWL_BR_BRANCH);
	assert_int_equal(trawl_branch_decode(0xbd80u, 2, TRAWL_ISET_T32, 0, &b), TRAWL_BR_RETURN);
	assert_int_equal(trawl_branch_decode(0xb580u, 2, TRAWL_ISET_T32, 0, &b), TRAWL_BR_NONE);
	assert_int_equal(trawl_branch_decode(0xe7feu, 2, TRAWL_ISET_T32, 0x200, &b), TRAWL_BR_BRANCH);
	assert_int_equal(b.target, 0x200); /* b . */
	assert_int_equal(trawl_branch_decode(0xd0fdu, 2, TRAWL_ISET_T32, 0x200, &b), TRAWL_BR_BRANCH);
	assert_int_equal(b.target, 0x1fe);
	assert_int_equal(trawl_branch_decode(0x46f7u, 2, TRAWL_ISET_T32, 0, &b), TRAWL_BR_RETURN); /* MOV pc,lr */
	assert_int_equal(trawl_branch_decode(0xe8bd8010u, 4, TRAWL_ISET_T32, 0, &b), TRAWL_BR_RETURN); /* POP.W {r4,pc} */
	assert_int_equal(trawl_branch_decode(0xf85dfb04u, 4, TRAWL_ISET_T32, 0, &b), TRAWL_BR_RETURN); /* LDR pc,[sp],#4 */
	assert_int_equal(trawl_branch_decode(0xf3de8f00u, 4, TRAWL_ISET_T32, 0, &b), TRAWL_BR_EXC_RETURN); /* ERET */
	assert_int_equal(trawl_branch_decode(0xdf01u, 2, TRAWL_ISET_T32, 0, &b), TRAWL_BR_EXC_CALL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a64_basic),
		cmocka_unit_test(a32_calls),
		cmocka_unit_test(thumb_calls),
		cmocka_unit_test(exceptions),
		cmocka_unit_test(mprofile_exception),
		cmocka_unit_test(starts_inside),
		cmocka_unit_test(sp_resync),
		cmocka_unit_test(fold_pc_read),
		cmocka_unit_test(tail_call),
		cmocka_unit_test(two_cpus),
		cmocka_unit_test(runs_and_batches),
		cmocka_unit_test(runs_and_cpus),
		cmocka_unit_test(runs_forced_transfers),
		cmocka_unit_test(debug_and_limits),
		cmocka_unit_test(branch_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
