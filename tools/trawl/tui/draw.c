/* Drawing helpers shared by the panes, and the frame: every pane drawn for
 * the current state, then one refresh (curses sends only what changed). */
#include "tui/draw.h"

#include <curses.h>
#include <string.h>

void draw_str(int y, int x, int w, const char *s, size_t n, int attr)
{
	char buf[512];
	if (w <= 0 || y < 0 || y >= LINES)
		return;
	if ((size_t)w > sizeof buf - 1)
		w = (int)sizeof buf - 1;
	size_t k = 0;
	/* tabs to spaces, control bytes to '.', so the layout never breaks */
	for (size_t i = 0; i < n && k < (size_t)w; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\t') {
			do
				buf[k++] = ' ';
			while (k % 8 && k < (size_t)w);
		} else {
			buf[k++] = c < 0x20 || c >= 0x7f ? '.' : (char)c;
		}
	}
	buf[k] = 0;
	attron(attr);
	mvaddnstr(y, x, buf, (int)k);
	attroff(attr);
}

void draw_fill(int y, int x, int w, int attr)
{
	if (w <= 0 || y < 0 || y >= LINES)
		return;
	attron(attr);
	mvhline(y, x, ' ', w);
	attroff(attr);
}

void draw_title(const struct rect *r, const char *text)
{
	if (!r->h || !r->w)
		return;
	draw_fill(r->y, r->x, r->w, CP(COL_TITLE) | (int)A_BOLD);
	draw_str(r->y, r->x + 1, r->w - 1, text, strlen(text), CP(COL_TITLE) | (int)A_BOLD);
}

void browser_draw(struct browser *b)
{
	struct layout l;
	erase();
	if (b->help) {
		pane_help_draw(b, LINES, COLS);
		refresh();
		return;
	}
	layout_compute(b, LINES, COLS, &l);
	nav_load_regs(b);
	pane_trace_draw(b, &l.trace);
	pane_regs_draw(b, &l.regs, l.reg_cols);
	pane_mem_draw(b, &l.mem);
	pane_vec_draw(b, &l.vec);
	pane_status_draw(b, &l.status);
	refresh();
}
