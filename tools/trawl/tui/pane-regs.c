/* Register panes: the core registers of the shown CPU, and the optional
 * FP/SIMD (v0-v31 as 128-bit values, fpsr, fpcr) and SVE (z, p, ffr at the
 * vector length the trace shows) panes. A byte the current event changed is
 * highlighted; a byte the trace never showed is printed as ??. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/draw.h"

#define REG_CELL 22

/* Did byte i of reg change from `before` to `regs`? */
static int byte_changed(const struct browser *b, uint32_t reg, uint32_t i)
{
	const uint8_t *v, *k, *bv, *bk;
	uint32_t w = trawl_index_regs_view(&b->regs, reg, &v, &k);
	if (i >= w)
		return 0;
	uint32_t bw = trawl_index_regs_view(&b->before, reg, &bv, &bk);
	if (i >= bw)
		return k[i] != 0;
	if (k[i] != bk[i])
		return 1;
	return k[i] && v[i] != bv[i];
}

/* Width of reg as trawl regs shows it, or, when no byte is known (drawn
 * as ??), its architectural width: 32 bits for an AArch32 core register
 * and the CPSR, else its storage width. */
static uint32_t shown_or_full(const struct browser *b, uint32_t reg)
{
	const uint8_t *v, *k;
	int a32 = nav_is_a32(b);
	uint32_t w = trawl_index_regs_view(&b->regs, reg, &v, &k);
	uint32_t n = w ? trawl_reg_shown_width(reg, k, w, a32) : 0;
	if (n)
		return n;
	return a32 && reg <= TRAWL_REG_PSR ? 4 : trawl_reg_width(reg);
}

/* Bytes [lo, hi) of reg, most significant first, at (y, x); w cells max. */
static void draw_reg_bytes(const struct browser *b, int y, int x, int w, uint32_t reg,
			   uint32_t lo, uint32_t hi, int sel)
{
	const uint8_t *v, *k;
	uint32_t rw = trawl_index_regs_view(&b->regs, reg, &v, &k);
	for (uint32_t i = hi; i-- > lo && w >= 2; x += 2, w -= 2) {
		char t[3];
		int attr = 0;
		if (i < rw && k[i]) {
			snprintf(t, sizeof t, "%02x", v[i]);
			if (byte_changed(b, reg, i))
				attr = CP(COL_CHANGED) | (int)A_BOLD;
		} else {
			memcpy(t, "??", 3);
			attr = CP(COL_UNKNOWN);
			if (i < rw && byte_changed(b, reg, i))
				attr = CP(COL_CHANGED);
		}
		/* reverse video keeps the changed/unknown colour visible */
		if (sel)
			attr |= (int)A_REVERSE;
		draw_str(y, x, 2, t, 2, attr);
	}
}

/* The pc row: the current instruction's address (nav_pc), digits wide.
 * It is never marked changed: it changes on every instruction. */
static void draw_pc(int y, int x, int w, uint64_t pc, int digits, int sel)
{
	char t[20];
	snprintf(t, sizeof t, "%0*llx", digits, (unsigned long long)pc);
	draw_str(y, x, w, t, (size_t)digits, sel ? (int)A_REVERSE : 0);
}

/* The core registers of the current CPU in the order of the state the
 * instruction is in (x0-x30 or r0-r12, sp, lr, pc, then psr), each at the
 * width trawl regs prints it, with a mark on those the event changed. */
void pane_regs_draw(struct browser *b, const struct rect *r, int cols)
{
	char title[64];
	if (r->h < 1 || r->w < 1)
		return;
	snprintf(title, sizeof title, "cpu %u%s", (unsigned)b->cpu, b->cpu_pinned ? " (pinned)" : "");
	draw_title(r, title);
	int rows = r->h - 1;
	if (rows <= 0)
		return;
	if (cols < 1)
		cols = 1;
	const uint32_t *regs;
	unsigned count = nav_core_regs(b, &regs), sel_row = nav_sel_row(b);
	int per_col = ((int)count + cols - 1) / cols;
	if (per_col > rows)
		per_col = rows;
	for (unsigned i = 0; i < count; i++) {
		int c = (int)i / per_col, row = (int)i % per_col;
		if (c >= cols)
			break;
		int x = r->x + 1 + c * REG_CELL, y = r->y + 1 + row;
		int avail = r->x + r->w - x;
		if (avail <= 0)
			continue;
		uint32_t reg = regs[i];
		const uint8_t *v, *k;
		uint32_t w = trawl_index_regs_view(&b->regs, reg, &v, &k);
		int sel = b->focus == FOCUS_REGS && sel_row == i;
		char rn[8];
		const char *name = nav_reg_name(b, reg, rn, sizeof rn);
		/* '*' marks a register the current event changed, for terminals
		 * without colour (and for scripts reading the screen) */
		int changed = 0;
		for (uint32_t j = 0; j < w && !changed; j++)
			changed = byte_changed(b, reg, j);
		char nm[8];
		snprintf(nm, sizeof nm, "%-4s%c", name, changed ? '*' : ' ');
		draw_str(y, x, avail, nm, strlen(nm),
			 sel ? CP(COL_SELECT) | (int)A_BOLD :
			 b->target == FOCUS_REGS && sel_row == i ? (int)A_UNDERLINE : (int)A_BOLD);
		uint64_t pc;
		if (reg == TRAWL_REG_PC && avail > 5 && nav_pc(b, &pc))
			draw_pc(y, x + 5, avail - 5, pc, nav_is_a32(b) ? 8 : 16, sel);
		else if (avail > 5)
			draw_reg_bytes(b, y, x + 5, avail - 5, reg, 0, shown_or_full(b, reg), sel);
	}
}

/* Vector length in bytes the trace shows: the highest known byte of any
 * V register, rounded up to 16. */
static uint32_t vector_length(const struct browser *b)
{
	uint32_t vl = 16;
	for (uint32_t n = 0; n < 32; n++) {
		const uint8_t *v, *k;
		uint32_t w = trawl_index_regs_view(&b->regs, TRAWL_REG_V0 + n, &v, &k);
		while (w > vl && !k[w - 1])
			w--;
		if (w > vl)
			vl = (w + 15) / 16 * 16;
	}
	return vl;
}

struct vec_item {
	uint32_t reg;
	char name[8];
	uint32_t lo, hi;        /* bytes shown on this row */
};

/* Rows of the vector pane, scrolled by vec_scroll. */
static int vec_items(const struct browser *b, int bytes_per_row, struct vec_item *it, int max)
{
	int n = 0;
	if (b->show_sve) {
		uint32_t vl = vector_length(b), pl = vl / 8;
		for (uint32_t r = 0; r < 49; r++) {
			uint32_t reg = r < 32 ? TRAWL_REG_V0 + r : r < 48 ? TRAWL_REG_P0 + r - 32 :
								       TRAWL_REG_FFR;
			uint32_t len = r < 32 ? vl : pl;
			for (uint32_t hi = len; hi > 0 && n < max;) {
				uint32_t lo = hi > (uint32_t)bytes_per_row ? hi - (uint32_t)bytes_per_row : 0;
				struct vec_item *x = &it[n++];
				x->reg = reg;
				if (hi == len) {
					if (r < 32)
						snprintf(x->name, sizeof x->name, "z%u", r);
					else if (r < 48)
						snprintf(x->name, sizeof x->name, "p%u", r - 32);
					else
						snprintf(x->name, sizeof x->name, "ffr");
				} else {
					x->name[0] = 0;
				}
				x->lo = lo;
				x->hi = hi;
				hi = lo;
			}
		}
		return n;
	}
	for (uint32_t r = 0; r < 34 && n < max; r++) {
		struct vec_item *x = &it[n++];
		x->reg = r < 32 ? TRAWL_REG_V0 + r : r == 32 ? TRAWL_REG_FPSR : TRAWL_REG_FPCR;
		if (r < 32)
			snprintf(x->name, sizeof x->name, "v%u", r);
		else
			snprintf(x->name, sizeof x->name, "%s", r == 32 ? "fpsr" : "fpcr");
		x->lo = 0;
		/* as trawl regs prints them (fpsr and fpcr at the width the
		 * trace writes them) */
		x->hi = r < 32 ? 16 : shown_or_full(b, x->reg);
	}
	return n;
}

#define MAX_VEC_ITEMS 2048

/* The FP/SIMD (v) or SVE (z) pane: registers as items laid out in as many
 * columns as fit, an SVE register wrapped over rows of 8-byte groups;
 * items come from a fixed table, so the pane never allocates while drawing. */
void pane_vec_draw(struct browser *b, const struct rect *r)
{
	static struct vec_item items[MAX_VEC_ITEMS];
	if (r->h < 2 || r->w < 8 || !(b->show_fp || b->show_sve))
		return;
	int rows = r->h - 1;
	int cell, cols, bpr;
	if (b->show_sve) {
		/* one register per row, wrapped: as many 8-byte groups as fit */
		bpr = (r->w - 6) / 2 / 8 * 8;
		if (bpr < 8)
			bpr = 8;
		cell = r->w;
		cols = 1;
	} else {
		bpr = 16;
		cell = 6 + 32 + 2;
		cols = r->w / cell;
		if (cols < 1)
			cols = 1;
	}
	int n = vec_items(b, bpr, items, MAX_VEC_ITEMS);
	int per_page = rows * cols;
	if (b->vec_scroll > n - per_page)
		b->vec_scroll = n - per_page;
	if (b->vec_scroll < 0)
		b->vec_scroll = 0;
	char title[96];
	snprintf(title, sizeof title, "%s  (cpu %u%s)",
		 b->show_sve ? "SVE: z, p, ffr" : "FP/SIMD: v (128 bits), fpsr, fpcr",
		 (unsigned)b->cpu, n > per_page ? ", < and > scroll" : "");
	draw_title(r, title);
	int per_col = b->show_sve ? rows : (n + cols - 1) / cols;
	if (per_col > rows)
		per_col = rows;
	for (int i = b->vec_scroll; i < n; i++) {
		int j = i - b->vec_scroll;
		int c = j / per_col, row = j % per_col;
		if (c >= cols)
			break;
		int x = r->x + 1 + c * cell, y = r->y + 1 + row;
		int avail = r->x + r->w - x;
		draw_str(y, x, avail, items[i].name, strlen(items[i].name), (int)A_BOLD);
		if (avail > 6)
			draw_reg_bytes(b, y, x + 6, avail - 6, items[i].reg, items[i].lo, items[i].hi,
				       0);
	}
}
