/* Moving through the trace: stepping (with folds and a pinned CPU), jumps
 * to lines, times, PCs and text, and time travel on registers and memory.
 * Everything here goes through the index; text search reads the trace
 * text (trawl_text). No curses in this file, so it can be reasoned about alone.
 */
#include "tui/browser.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

volatile sig_atomic_t browser_interrupted;

/* The register pane's rows. AArch64: x0-x30, sp, pc, psr. AArch32: the
 * AArch32 register file in its own order, r0-r12, sp (r13), lr (r14), pc
 * (r15), psr; storage X15-X30 are not AArch32 registers and get no row. */
static const uint32_t core_regs_a64[] = {
	0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
	18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, TRAWL_REG_SP, TRAWL_REG_PC,
	TRAWL_REG_PSR,
};
static const uint32_t core_regs_a32[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, TRAWL_REG_SP, 14, TRAWL_REG_PC, TRAWL_REG_PSR,
};
const unsigned core_reg_max = sizeof core_regs_a64 / sizeof core_regs_a64[0];

void nav_msg(struct browser *b, int error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->msg, sizeof b->msg, fmt, ap);
	va_end(ap);
	b->msg_error = error;
}

int nav_is_a32(const struct browser *b)
{
	return b->cur.iset == TRAWL_ISET_A32 || b->cur.iset == TRAWL_ISET_T32;
}

unsigned nav_core_regs(const struct browser *b, const uint32_t **regs)
{
	if (nav_is_a32(b)) {
		*regs = core_regs_a32;
		return sizeof core_regs_a32 / sizeof core_regs_a32[0];
	}
	*regs = core_regs_a64;
	return core_reg_max;
}

unsigned nav_sel_row(const struct browser *b)
{
	const uint32_t *regs;
	unsigned n = nav_core_regs(b, &regs), best = 0;
	/* the selected register's row, else the row of the nearest register
	 * below it (x15-x30 fall back to lr in AArch32) */
	for (unsigned i = 0; i < n; i++) {
		if (regs[i] == b->sel_reg)
			return i;
		if (regs[i] < b->sel_reg && regs[i] > regs[best])
			best = i;
	}
	return best;
}

const char *nav_reg_name(const struct browser *b, uint32_t reg, char *buf, size_t size)
{
	if (nav_is_a32(b) && reg < TRAWL_REG_SP) {
		if (reg == 14)
			snprintf(buf, size, "lr");
		else
			snprintf(buf, size, "r%u", (unsigned)reg);
		return buf;
	}
	return trawl_index_reg_name(b->ix, reg);
}

void nav_init(struct browser *b)
{
	struct trawl_index_info info;
	trawl_index_get_info(b->ix, &info);
	b->nev = trawl_index_event_count(b->ix);
	b->ncpus = info.cpus ? info.cpus : 1;
	trawl_index_regs_init(&b->regs);
	trawl_index_regs_init(&b->before);
	b->regs_ev = NO_EVENT;
	b->mem_ref = NO_EVENT;
	b->target = FOCUS_REGS;
	b->last_dir = 1;
	nav_goto(b, 0);
}

void nav_release(struct browser *b)
{
	trawl_index_regs_release(&b->regs);
	trawl_index_regs_release(&b->before);
}

void nav_goto(struct browser *b, uint64_t ev)
{
	if (!b->nev)
		return;
	if (ev >= b->nev)
		ev = b->nev - 1;
	b->ev = ev;
	if (trawl_index_event(b->ix, ev, &b->cur, NULL))
		memset(&b->cur, 0, sizeof b->cur);
	if (!b->cpu_pinned)
		b->cpu = b->cur.cpu;
}

int nav_visible(struct browser *b, const struct trawl_index_event *e)
{
	if (b->cpu_pinned && e->cpu != b->cpu)
		return 0;
	if (b->fold && e->depth > b->fold_depth)
		return 0;
	return 1;
}

/* Scans stop on a signal so that q/Ctrl-C still work during a long one. */
#define CHECK_EVERY 65536

/* With calls folded, a call made at the fold depth is hidden as a whole:
 * jump to its return (or, backwards, to the call) through the PC index
 * instead of scanning it. Only when no other CPU's events could show in
 * between (one CPU, or a pinned one). */
static int fold_shortcut(const struct browser *b, uint64_t ev)
{
	struct trawl_index_event e;
	return b->fold && (b->ncpus == 1 || b->cpu_pinned) &&
	       trawl_index_event(b->ix, ev, &e, NULL) == TRAWL_OK && e.depth == b->fold_depth &&
	       (!b->cpu_pinned || e.cpu == b->cpu);
}

uint64_t nav_next(struct browser *b, uint64_t ev)
{
	struct trawl_index_event e;
	if (fold_shortcut(b, ev)) {
		uint64_t r;
		if (trawl_callhop_return(b->ix, ev, &r, NULL) == TRAWL_OK)
			return r;
	}
	for (uint64_t i = ev + 1; i < b->nev; i++) {
		if (trawl_index_event(b->ix, i, &e, NULL))
			break;
		if (nav_visible(b, &e))
			return i;
		if (i % CHECK_EVERY == 0 && browser_interrupted)
			break;
	}
	return NO_EVENT;
}

uint64_t nav_prev(struct browser *b, uint64_t ev)
{
	struct trawl_index_event e;
	if (fold_shortcut(b, ev)) {
		uint64_t c;
		if (trawl_callhop_call(b->ix, ev, &c, NULL) == TRAWL_OK)
			return c;
	}
	for (uint64_t i = ev; i-- > 0;) {
		if (trawl_index_event(b->ix, i, &e, NULL))
			break;
		if (nav_visible(b, &e))
			return i;
		if (i % CHECK_EVERY == 0 && browser_interrupted)
			break;
	}
	return NO_EVENT;
}

void nav_step(struct browser *b, int64_t n)
{
	uint64_t ev = b->ev;
	for (; n > 0; n--) {
		uint64_t nx = nav_next(b, ev);
		if (nx == NO_EVENT)
			break;
		ev = nx;
	}
	for (; n < 0; n++) {
		uint64_t pv = nav_prev(b, ev);
		if (pv == NO_EVENT)
			break;
		ev = pv;
	}
	if (ev == b->ev)
		nav_msg(b, 0, n > 0 || ev + 1 >= b->nev ? "at the last event" : "at the first event");
	nav_goto(b, ev);
}

void nav_first(struct browser *b)
{
	struct trawl_index_event e;
	if (trawl_index_event(b->ix, 0, &e, NULL) == TRAWL_OK && nav_visible(b, &e)) {
		nav_goto(b, 0);
		return;
	}
	uint64_t ev = nav_next(b, 0);
	nav_goto(b, ev == NO_EVENT ? 0 : ev);
}

void nav_last(struct browser *b)
{
	struct trawl_index_event e;
	uint64_t last = b->nev ? b->nev - 1 : 0;
	if (trawl_index_event(b->ix, last, &e, NULL) == TRAWL_OK && nav_visible(b, &e)) {
		nav_goto(b, last);
		return;
	}
	uint64_t ev = nav_prev(b, last);
	nav_goto(b, ev == NO_EVENT ? last : ev);
}

/* A jump lands exactly where asked, even inside a fold or on another CPU:
 * the fold opens, since hiding the target of an explicit jump would only
 * confuse; a pinned CPU stays pinned (its registers are what was asked
 * about). */
static void land(struct browser *b, uint64_t ev)
{
	struct trawl_index_event e;
	if (trawl_index_event(b->ix, ev, &e, NULL) == TRAWL_OK) {
		if (b->fold && e.depth > b->fold_depth) {
			b->fold = 0;
			nav_msg(b, 0, "unfolded to show the target");
		}
	}
	nav_goto(b, ev);
}

/* Land on the event a lookup found, or show why there is none. */
static int land_on(struct browser *b, enum trawl_status st, const uint64_t *ev,
		   const struct trawl_error *err)
{
	if (st) {
		nav_msg(b, 1, "%s", err->message);
		return 0;
	}
	land(b, *ev);
	return 1;
}

int nav_goto_line(struct browser *b, uint64_t line)
{
	struct trawl_error err;
	uint64_t ev = 0;
	return land_on(b, trawl_index_event_at_line(b->ix, line, &ev, &err), &ev, &err);
}

int nav_goto_time(struct browser *b, uint64_t t)
{
	struct trawl_error err;
	uint64_t ev = 0;
	return land_on(b, trawl_index_event_at_time(b->ix, t, &ev, &err), &ev, &err);
}

static int interrupted(void *ctx)
{
	(void)ctx;
	return browser_interrupted != 0;
}

int nav_step_over(struct browser *b, int dir)
{
	uint64_t ev;
	if (trawl_callhop_step_over(b->ix, b->ev, dir, interrupted, NULL, &ev, NULL)) {
		nav_msg(b, 0, dir > 0 ? "no later event at this depth"
				      : "no earlier event at this depth");
		return 0;
	}
	nav_goto(b, ev);
	return 1;
}

/* Step out: where the current function returned (callhop.h). */
int nav_step_out(struct browser *b)
{
	uint64_t ev;
	if (trawl_callhop_step_out(b->ix, b->ev, b->ncpus, interrupted, NULL, &ev, NULL)) {
		nav_msg(b, 0, "no return from this function in the trace");
		return 0;
	}
	nav_goto(b, ev);
	return 1;
}

void nav_fold_toggle(struct browser *b)
{
	if (b->fold) {
		b->fold = 0;
		nav_msg(b, 0, "calls unfolded");
		return;
	}
	b->fold = 1;
	b->fold_depth = b->cur.depth;
	nav_msg(b, 0, "calls deeper than depth %d folded", (int)b->fold_depth);
}

void nav_switch_cpu(struct browser *b)
{
	if (!b->cpu_pinned) {
		b->cpu_pinned = 1;
		b->cpu = 0;
	} else if ((uint32_t)b->cpu + 1 < b->ncpus) {
		b->cpu++;
	} else {
		b->cpu_pinned = 0;
		b->cpu = b->cur.cpu;
		nav_msg(b, 0, "following the CPU of each event");
		return;
	}
	b->regs_ev = NO_EVENT;
	nav_msg(b, 0, "showing cpu %u; steps skip other CPUs", (unsigned)b->cpu);
}

/* Last occurrence of needle in [hay, hay+n). */
static const char *memrmem_(const char *hay, size_t n, const char *needle, size_t m)
{
	if (m > n)
		return NULL;
	for (size_t i = n - m + 1; i-- > 0;) {
		const char *p = memrchr(hay, needle[0], i + 1);
		if (!p)
			return NULL;
		i = (size_t)(p - hay);
		if (!memcmp(p, needle, m))
			return p;
	}
	return NULL;
}

/* Search the text in slices so that an interrupt is noticed on huge traces. */
#define SLICE (64u << 20)

/* Search the slice [lo, hi) of the text for the first (dir > 0) or last
 * hit; *at is its offset. */
static int search_slice(struct browser *b, uint64_t lo, uint64_t hi, const char *text, size_t m,
			int dir, uint64_t *at)
{
	const char *p, *hit;
	size_t got;
	struct trawl_error err;
	if (trawl_text_get(b->text, lo, (size_t)(hi - lo), &p, &got, &err)) {
		nav_msg(b, 1, "%s", err.message);
		return -1;
	}
	hit = dir > 0 ? memmem(p, got, text, m) : memrmem_(p, got, text, m);
	if (!hit)
		return 0;
	*at = lo + (uint64_t)(hit - p);
	return 1;
}

/* Text search over the trace text (plain or compressed) from the current
 * event, in slices of SLICE bytes so that Ctrl-C is noticed on huge
 * traces; a hit is mapped back to its event through the index, so the view
 * lands on whole events. */
int nav_search_text(struct browser *b, const char *text, int dir)
{
	size_t m = strlen(text);
	int found = 0;
	uint64_t at = 0;
	struct trawl_error err;
	if (!m || !b->text) {
		nav_msg(b, 1, b->text ? "empty search" : "the trace text cannot be read");
		return 0;
	}
	snprintf(b->last_text, sizeof b->last_text, "%s", text);
	b->last_kind = SEARCH_TEXT;
	b->last_dir = dir;
	uint64_t size = trawl_text_size(b->text);
	uint64_t start = b->cur.offset, end = start + b->cur.length;
	if (end > size)
		end = size;
	if (start > end)
		start = end;
	if (dir > 0) {
		for (uint64_t pos = end; pos < size && !found && !browser_interrupted;) {
			uint64_t lim = pos + SLICE + m < size ? pos + SLICE + m : size;
			found = search_slice(b, pos, lim, text, m, dir, &at);
			pos += SLICE;
		}
	} else {
		for (uint64_t pos = start; pos > 0 && !found && !browser_interrupted;) {
			uint64_t lo = pos > SLICE ? pos - SLICE : 0;
			uint64_t hi = pos + m - 1 < size ? pos + m - 1 : size;
			/* a hit must start before pos */
			found = search_slice(b, lo, hi, text, m, dir, &at);
			if (found > 0 && at >= pos)
				found = 0;
			pos = lo;
		}
	}
	if (found < 0)
		return 0;
	if (!found) {
		nav_msg(b, 1, "'%s' not found %s", text, dir > 0 ? "below" : "above");
		return 0;
	}
	uint64_t ev;
	if (trawl_index_event_at_offset(b->ix, at, &ev, &err)) {
		nav_msg(b, 1, "%s", err.message);
		return 0;
	}
	land(b, ev);
	nav_msg(b, 0, "/%s", text);
	return 1;
}

int nav_search_pc(struct browser *b, uint64_t pc, int dir)
{
	struct trawl_error err;
	uint64_t ev;
	b->last_kind = SEARCH_PC;
	b->last_pc = pc;
	b->last_dir = dir;
	if (trawl_index_pc_step(b->ix, pc, b->ev, dir, &ev, &err)) {
		nav_msg(b, 1, "no %s visit of 0x%llx (%llu in all)", dir > 0 ? "later" : "earlier",
			(unsigned long long)pc, (unsigned long long)trawl_index_pc_count(b->ix, pc));
		return 0;
	}
	land(b, ev);
	nav_msg(b, 0, "pc 0x%llx: %llu visits", (unsigned long long)pc,
		(unsigned long long)trawl_index_pc_count(b->ix, pc));
	return 1;
}

int nav_repeat(struct browser *b, int dir)
{
	int d = b->last_dir * dir;
	switch (b->last_kind) {
	case SEARCH_TEXT: {
		char t[sizeof b->last_text];
		memcpy(t, b->last_text, sizeof t);
		int r = nav_search_text(b, t, d);
		b->last_dir = d * dir; /* N does not flip the remembered direction */
		return r;
	}
	case SEARCH_PC: {
		int r = nav_search_pc(b, b->last_pc, d);
		b->last_dir = d * dir;
		return r;
	}
	default:
		nav_msg(b, 1, "no search to repeat");
		return 0;
	}
}

void nav_load_regs(struct browser *b)
{
	if (b->regs_ev == b->ev && b->regs_cpu == b->cpu)
		return;
	struct trawl_error err;
	if (trawl_index_regs_at(b->ix, b->ev, b->cpu, &b->regs, &err)) {
		nav_msg(b, 1, "registers: %s", err.message);
		b->regs.size = 0;
	}
	b->before.size = 0;
	if (b->ev > 0 && trawl_index_regs_at(b->ix, b->ev - 1, b->cpu, &b->before, &err))
		b->before.size = 0;
	b->regs_ev = b->ev;
	b->regs_cpu = b->cpu;
}

int nav_pc(const struct browser *b, uint64_t *pc)
{
	/* the index keeps the PC in each instruction's event, not as a
	 * register write: it is the shown CPU's pc while it executes */
	if (b->cur.kind != TRAWL_EV_INSN || b->cur.cpu != b->cpu)
		return 0;
	*pc = nav_is_a32(b) ? b->cur.pc & 0xffffffffu : b->cur.pc;
	return 1;
}

/* Names in expressions: registers of the shown CPU at the current event
 * (as the trace names them: x0, w0, sp, pc ...), then image symbols. */
static enum trawl_expr_name lookup(void *ctx, const char *name, size_t len, uint64_t *value)
{
	struct browser *b = ctx;
	struct trawl_reg_ref ref;
	char buf[128];
	if (len >= sizeof buf)
		return TRAWL_EXPR_NAME_UNKNOWN_NAME;
	memcpy(buf, name, len);
	buf[len] = 0;
	/* names mean what they mean in the current event's state: sp and lr
	 * are 32 bits in AArch32 (the high half of their storage is unknown) */
	if (trawl_reg_parse(name, len, nav_is_a32(b) ? TRAWL_REG_STATE_A32 : TRAWL_REG_STATE_A64,
			    &ref) &&
	    ref.reg < TRAWL_REG_V0) {
		const uint8_t *v, *k;
		if (ref.reg == TRAWL_REG_PC && nav_pc(b, value))
			return TRAWL_EXPR_NAME_OK;
		nav_load_regs(b);
		uint32_t w = trawl_index_regs_view(&b->regs, ref.reg, &v, &k);
		uint32_t n = ref.size ? ref.size : w - ref.offset;
		if (!w || ref.offset + n > w || n > 8)
			return TRAWL_EXPR_NAME_NO_VALUE;
		uint64_t x = 0;
		for (uint32_t i = n; i-- > 0;) {
			if (!k[ref.offset + i])
				return TRAWL_EXPR_NAME_NO_VALUE;
			x = x << 8 | v[ref.offset + i];
		}
		*value = x;
		return TRAWL_EXPR_NAME_OK;
	}
	if (b->img) {
		const struct trawl_symbol *s = trawl_image_symbol_named(b->img, buf);
		if (s) {
			*value = s->addr;
			return TRAWL_EXPR_NAME_OK;
		}
	}
	return TRAWL_EXPR_NAME_UNKNOWN_NAME;
}

int nav_eval(struct browser *b, const char *text, uint64_t *out)
{
	struct trawl_error err;
	if (trawl_expr_eval(text, lookup, b, out, &err)) {
		nav_msg(b, 1, "column %u: %s", err.column, err.message);
		return 0;
	}
	return 1;
}

/* w/W: the event that last (or next) wrote what is selected, a memory byte
 * or a register, asked of the index exactly as trawl last-write and
 * next-write ask it (the browse tests compare the two), with the register
 * named as the current instruction's state names it. */
int nav_write(struct browser *b, int dir)
{
	struct trawl_error err;
	enum trawl_status st;
	uint64_t ev = NO_EVENT;
	char what[64];
	if (b->target == FOCUS_MEM) {
		if (!b->mem_set) {
			nav_msg(b, 1, "no memory shown: press m to give an address");
			return 0;
		}
		snprintf(what, sizeof what, "byte 0x%llx", (unsigned long long)b->sel_addr);
		if (dir < 0) {
			/* the write that made the current value; again from there goes further back */
			st = trawl_index_last_write_mem(b->ix, b->ev, b->sel_addr, 1, &ev, &err);
			if (st == TRAWL_OK && ev == b->ev)
				st = b->ev ? trawl_index_last_write_mem(b->ix, b->ev - 1, b->sel_addr, 1,
									&ev, &err)
					   : TRAWL_ERR_NOT_FOUND;
		} else {
			st = trawl_index_next_write_mem(b->ix, b->ev, b->sel_addr, 1, &ev, &err);
		}
	} else {
		const uint32_t *regs;
		nav_core_regs(b, &regs);
		uint32_t reg = regs[nav_sel_row(b)];
		/* acting on a fallback row (x20 shown as lr in AArch32) makes
		 * it the selection, so it stays on the register followed */
		b->sel_reg = reg;
		char rn[8];
		snprintf(what, sizeof what, "%s", nav_reg_name(b, reg, rn, sizeof rn));
		/* the bytes the row's name means in this state, as trawl
		 * last-write/next-write read it (lr and sp are 32 bits in AArch32) */
		struct trawl_reg_ref ref = { reg, 0, 0, 0 };
		trawl_reg_parse(what, strlen(what),
				nav_is_a32(b) ? TRAWL_REG_STATE_A32 : TRAWL_REG_STATE_A64, &ref);
		uint32_t off = ref.offset, w = ref.size ? ref.size : trawl_reg_width(ref.reg) - off;
		reg = ref.reg;
		if (dir < 0) {
			st = trawl_index_last_write_reg(b->ix, b->ev, b->cpu, reg, off, w, &ev, &err);
			if (st == TRAWL_OK && ev == b->ev)
				st = b->ev ? trawl_index_last_write_reg(b->ix, b->ev - 1, b->cpu, reg,
									off, w, &ev, &err)
					   : TRAWL_ERR_NOT_FOUND;
		} else {
			st = trawl_index_next_write_reg(b->ix, b->ev, b->cpu, reg, off, w, &ev,
							&err);
		}
	}
	if (st) {
		nav_msg(b, st == TRAWL_ERR_NOT_FOUND ? 0 : 1, "no %s write of %s",
			dir < 0 ? "earlier" : "later", what);
		return 0;
	}
	uint16_t cpu = b->cpu;
	int pinned = b->cpu_pinned;
	land(b, ev);
	/* keep showing the register's CPU even if the event is another's */
	if (b->target == FOCUS_REGS && !pinned)
		b->cpu = cpu;
	nav_msg(b, 0, "%s write of %s", dir < 0 ? "last" : "next", what);
	return 1;
}

int nav_mem_change(struct browser *b, int dir)
{
	struct trawl_error err;
	enum trawl_status st;
	uint64_t ev;
	if (!b->mem_set) {
		nav_msg(b, 1, "no memory shown: press m to give an address");
		return 0;
	}
	uint64_t len = (uint64_t)(b->mem_rows ? b->mem_rows : 1) * 16;
	if (dir < 0)
		st = b->ev ? trawl_index_last_write_mem(b->ix, b->ev - 1, b->mem_addr, len, &ev, &err)
			   : TRAWL_ERR_NOT_FOUND;
	else
		st = trawl_index_next_write_mem(b->ix, b->ev, b->mem_addr, len, &ev, &err);
	if (st) {
		nav_msg(b, st == TRAWL_ERR_NOT_FOUND ? 0 : 1, "no %s write to 0x%llx..0x%llx",
			dir < 0 ? "earlier" : "later", (unsigned long long)b->mem_addr,
			(unsigned long long)(b->mem_addr + len - 1));
		return 0;
	}
	land(b, ev);
	nav_msg(b, 0, "%s write to the memory shown", dir < 0 ? "previous" : "next");
	return 1;
}
