/* Where the panes go for a terminal of rows x cols:
 *
 *   +-------------------------------+---------------+
 *   | trace text                    | core regs     |
 *   |                               | (1-3 columns) |
 *   +-------------------------------+               |
 *   | memory (when an address set)  |               |
 *   +-------------------------------+---------------+
 *   | FP/SIMD or SVE (when toggled on)              |
 *   +-----------------------------------------------+
 *   status line
 *
 * Panes shrink (and may vanish) on small terminals; nothing is drawn
 * outside the screen, so any size works.
 */
#include "tui/browser.h"

#define REG_CELL 22     /* "cpsr 0123456789abcdef " */

static struct rect rect(int y, int x, int h, int w)
{
	struct rect r = { y, x, h > 0 ? h : 0, w > 0 ? w : 0 };
	return r;
}

/* Where each pane goes for a terminal of rows x cols: the status line at
 * the bottom, the vector pane (when shown) across the bottom third, the
 * register pane on the right in as many columns (up to 3) as list every
 * core register while leaving the trace 40 columns, and the memory pane
 * (when an address is set) under the trace, which takes the rest. */
void layout_compute(struct browser *b, int rows, int cols, struct layout *l)
{
	int body = rows - 1;
	if (body < 0)
		body = 0;
	l->status = rect(rows - 1, 0, rows > 0 ? 1 : 0, cols);

	int vec_h = 0;
	if (b->show_fp || b->show_sve) {
		vec_h = body / 3;
		if (vec_h < 4)
			vec_h = body >= 8 ? 4 : 0;
	}
	int top = body - vec_h;
	l->vec = rect(top, 0, vec_h, cols);

	/* registers: as many columns as it takes to list them all */
	int reg_rows = top - 1;
	int ncols = 1;
	if (reg_rows > 0)
		ncols = ((int)core_reg_max + reg_rows - 1) / reg_rows;
	if (ncols > 3)
		ncols = 3;
	int reg_w = ncols * REG_CELL + 1;
	while (ncols > 1 && cols - reg_w < 40) {
		ncols--;
		reg_w = ncols * REG_CELL + 1;
	}
	if (cols - reg_w < 20)
		reg_w = cols >= 20 ? cols / 2 : 0;
	l->reg_cols = ncols;
	l->regs = rect(0, cols - reg_w, top, reg_w);

	int left = cols - reg_w;
	int mem_h = 0;
	if (b->mem_set) {
		mem_h = top / 3;
		if (mem_h < 3)
			mem_h = top >= 9 ? 3 : 0;
	}
	l->trace = rect(0, 0, top - mem_h, left);
	l->mem = rect(top - mem_h, 0, mem_h, left);
	b->mem_rows = mem_h > 1 ? (uint32_t)(mem_h - 1) : 1;
}
