/* Reading a line (a line number, an expression, search text) on the
 * status row. Keys come from term_key() so scripted runs (--bench-keys)
 * drive prompts the same way a person does. */
#include <curses.h>
#include <string.h>

#include "tui/draw.h"

/* A one-line prompt on the status line: its own small key loop (edit,
 * Enter, Esc, resize) rather than curses' getstr, so Esc cancels and the
 * screen is redrawn correctly around it. */
int prompt_read(struct browser *b, const char *label, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (;;) {
		int y = LINES - 1;
		draw_fill(y, 0, COLS, 0);
		draw_str(y, 0, COLS, label, strlen(label), (int)A_BOLD);
		int x = (int)strlen(label);
		draw_str(y, x, COLS - x, buf, len, 0);
		move(y, x + (int)len < COLS ? x + (int)len : COLS - 1);
		curs_set(1);
		refresh();
		int c = term_key(b);
		curs_set(0);
		if (c == ERR) {
			if (browser_interrupted || b->quit)
				return 0;
			continue;
		}
		if (c == '\n' || c == '\r' || c == KEY_ENTER)
			return 1;
		if (c == 27 || c == 7) { /* Esc, Ctrl-G */
			nav_msg(b, 0, "cancelled");
			return 0;
		}
		if (c == KEY_BACKSPACE || c == 127 || c == 8) {
			if (len)
				buf[--len] = 0;
			continue;
		}
		if (c == 21) { /* Ctrl-U */
			len = 0;
			buf[0] = 0;
			continue;
		}
		if (c == KEY_RESIZE) {
			browser_draw(b);
			continue;
		}
		if (c >= 0x20 && c < 0x7f && len + 1 < size) {
			buf[len++] = (char)c;
			buf[len] = 0;
		}
	}
}
