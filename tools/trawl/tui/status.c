/* The status line (where we are: line, event, time, CPU, PC and its
 * symbol, call depth, then the last message) and the help screen, which is
 * drawn from the same key table keys.c dispatches on. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/keys.h"

void pane_status_draw(struct browser *b, const struct rect *r)
{
	char buf[512], sym[160];
	if (r->h < 1 || r->w < 1)
		return;
	const struct trawl_index_event *e = &b->cur;
	sym[0] = 0;
	if (b->img && e->kind == TRAWL_EV_INSN && trawl_image_symbol_at(b->img, e->pc)) {
		sym[0] = ' ';
		trawl_image_describe(b->img, e->pc, sym + 1, sizeof sym - 1);
	}
	struct trawl_index_info info;
	trawl_index_get_info(b->ix, &info);
	int n = snprintf(buf, sizeof buf, "line %llu  ev %llu/%llu  time %llu%s%s  cpu %u  ",
			 (unsigned long long)e->line, (unsigned long long)b->ev,
			 (unsigned long long)b->nev, (unsigned long long)e->time,
			 info.time_unit ? " " : "",
			 info.time_unit ? trawl_time_unit_name(info.time_unit) : "", (unsigned)e->cpu);
	if (n < 0 || (size_t)n >= sizeof buf)
		n = (int)sizeof buf - 1;
	if (e->kind == TRAWL_EV_INSN)
		n += snprintf(buf + n, sizeof buf - (size_t)n, "pc 0x%llx%s  ",
			      (unsigned long long)e->pc, sym);
	else
		n += snprintf(buf + n, sizeof buf - (size_t)n, "%s  ",
			      trawl_event_kind_name((enum trawl_event_kind)e->kind));
	if ((size_t)n < sizeof buf)
		snprintf(buf + n, sizeof buf - (size_t)n, "depth %d%s", (int)e->depth,
			 b->fold ? " [fold]" : "");
	int attr = CP(COL_STATUS) | (int)A_BOLD;
	draw_fill(r->y, r->x, r->w, attr);
	draw_str(r->y, r->x, r->w, buf, strlen(buf), attr);
	int used = (int)strlen(buf);
	const char *m = b->msg[0] ? b->msg : "h: help";
	int mlen = (int)strlen(m);
	int x = r->x + r->w - mlen - 1;
	if (x < r->x + used + 2)
		x = r->x + used + 2;
	draw_str(r->y, x, r->x + r->w - x, m, (size_t)mlen,
		 b->msg_error ? CP(COL_ERROR) | (int)A_BOLD : attr);
}

void pane_help_draw(struct browser *b, int rows, int cols)
{
	size_t n;
	const struct key_help *k = keys_help(&n);
	const char *head = "trawl browse: keys (any key closes this help)";
	draw_fill(0, 0, cols, CP(COL_TITLE) | (int)A_BOLD);
	draw_str(0, 1, cols - 1, head, strlen(head), CP(COL_TITLE) | (int)A_BOLD);
	/* two columns when the screen is wide enough and the list is long */
	int col_w = cols >= 120 ? cols / 2 : cols;
	int per_col = rows - 2;
	if (per_col < 1)
		return;
	for (size_t i = 0; i < n; i++) {
		int c = (int)i / per_col, row = (int)i % per_col;
		int x = c * col_w;
		if (x >= cols)
			break;
		char line[256];
		snprintf(line, sizeof line, " %-12s %s", k[i].keys, k[i].what);
		draw_str(row + 1, x, col_w, line, strlen(line), 0);
	}
	(void)b;
}
