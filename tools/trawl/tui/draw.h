/* Drawing helpers for the panes (curses). */
#ifndef TRAWL_TUI_DRAW_H
#define TRAWL_TUI_DRAW_H

#include <stddef.h>

#include "tui/browser.h"

/* Colour pair as an int attribute, to mix with A_* in int arithmetic. */
#define CP(n) ((int)COLOR_PAIR(n))

/* n bytes of s at (y, x), at most w cells, made printable. */
void draw_str(int y, int x, int w, const char *s, size_t n, int attr);
/* w blank cells with attr. */
void draw_fill(int y, int x, int w, int attr);
/* The first row of r as a title bar. */
void draw_title(const struct rect *r, const char *text);

#endif
