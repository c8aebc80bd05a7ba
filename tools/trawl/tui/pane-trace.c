/* The trace pane: the trace text around the current event, read from the
 * trace (plain or compressed, trawl_text) by the byte offsets the index gives, the current event
 * highlighted, folded calls shown as one line each. The current event sits
 * a third of the way down so that more of what follows is visible. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "event-text.h"
#include "tui/draw.h"

enum { ROW_TEXT, ROW_FOLD };

struct row {
	int type;
	uint64_t ev;
	uint64_t line;
	uint64_t offset;        /* ROW_TEXT: the event's text and which line of it */
	uint32_t length, i;
	uint64_t hidden;        /* ROW_FOLD: events hidden */
};

/* Line i of an event's text [off, off + elen), read when the row is drawn
 * (the text of a compressed trace is valid until the next read). */
static void event_line(const struct browser *b, uint64_t off, uint32_t elen, uint32_t i,
		       const char **s, size_t *n)
{
	size_t got;
	struct trawl_error err;
	*s = "";
	*n = 0;
	/* an event's text past 1 MiB is not shown (of a compressed trace it
	 * would be copied whole) */
	if (elen > (1u << 20))
		elen = 1u << 20;
	if (!b->text || trawl_text_get(b->text, off, elen, s, &got, &err))
		return;
	const char *p = *s, *lim = *s + got;
	for (; i > 0 && p < lim; i--) {
		const char *nl = memchr(p, '\n', (size_t)(lim - p));
		if (!nl) {
			*s = "";
			return;
		}
		p = nl + 1;
	}
	const char *nl = memchr(p, '\n', (size_t)(lim - p));
	size_t len = nl ? (size_t)(nl - p) : (size_t)(lim - p);
	if (len && p[len - 1] == '\r')
		len--;
	*s = p;
	*n = len;
}

/* A source without text (a decoded ETE trace): the event as the index
 * has it (event-text.h, as trawl serve lists it). */
static size_t event_synth(const struct browser *b, uint64_t ev, char *buf, size_t size)
{
	struct trawl_index_event e;
	if (b->text || trawl_index_event(b->ix, ev, &e, NULL) != TRAWL_OK)
		return 0;
	return event_text_synth(&e, buf, size);
}

static uint32_t event_rows(const struct trawl_index_event *e)
{
	return e->nlines ? e->nlines : 1;
}

/* Fill rows[] (at most max) with event ev's lines, last first when rev. */
static int add_event(const struct browser *b, uint64_t ev, struct row *rows, int max, int rev)
{
	struct trawl_index_event e;
	if (trawl_index_event(b->ix, ev, &e, NULL))
		return 0;
	uint32_t n = event_rows(&e);
	int k = 0;
	for (uint32_t j = 0; j < n && k < max; j++) {
		uint32_t i = rev ? n - 1 - j : j;
		struct row *r = &rows[k++];
		r->type = ROW_TEXT;
		r->ev = ev;
		r->line = e.line + i;
		r->offset = e.offset;
		r->length = e.length;
		r->i = i;
	}
	return k;
}

static int add_fold(struct row *rows, int max, uint64_t first, uint64_t hidden)
{
	if (max < 1 || !hidden)
		return 0;
	rows[0].type = ROW_FOLD;
	rows[0].ev = first;
	rows[0].hidden = hidden;
	return 1;
}

#define MAX_ROWS 1024

/* The trace text around the current event: rows above and below are
 * collected first (folding calls deeper than the fold depth when asked),
 * so the current event stays at the same place while stepping. */
void pane_trace_draw(struct browser *b, const struct rect *r)
{
	static struct row above[MAX_ROWS], below[MAX_ROWS];
	char title[256];
	if (r->h < 1 || r->w < 1)
		return;
	if (b->fold)
		snprintf(title, sizeof title, "trace  [calls deeper than %d folded]",
			 (int)b->fold_depth);
	else
		snprintf(title, sizeof title, "trace");
	draw_title(r, title);
	int h = r->h - 1;
	if (h > MAX_ROWS)
		h = MAX_ROWS;
	if (h <= 0 || !b->nev)
		return;
	/* collect up to a screenful each way, then pick the window: a third
	 * above, unless an end of the trace leaves room for more */
	int nb = add_event(b, b->ev, below, h, 0);
	uint64_t ev = b->ev;
	while (nb < h) {
		uint64_t nx = nav_next(b, ev);
		if (nx == NO_EVENT)
			break;
		if (b->fold && nx > ev + 1)
			nb += add_fold(below + nb, h - nb, ev + 1, nx - ev - 1);
		nb += add_event(b, nx, below + nb, h - nb, 0);
		ev = nx;
	}
	int na = 0;
	ev = b->ev;
	while (na < h) {
		uint64_t pv = nav_prev(b, ev);
		if (pv == NO_EVENT)
			break;
		if (b->fold && ev > pv + 1)
			na += add_fold(above + na, h - na, pv + 1, ev - pv - 1);
		na += add_event(b, pv, above + na, h - na, 1);
		ev = pv;
	}
	int show_above = h / 3;
	if (h - nb > show_above)
		show_above = h - nb;
	if (na < show_above)
		show_above = na;
	na = show_above;
	if (nb > h - na)
		nb = h - na;
	int gutter = 9;
	int y = r->y + 1;
	for (int i = 0; i < na + nb && y < r->y + r->h; i++, y++) {
		const struct row *row = i < na ? &above[na - 1 - i] : &below[i - na];
		int cur = row->type == ROW_TEXT && row->ev == b->ev;
		int attr = cur ? CP(COL_CURRENT) | (int)A_BOLD : 0;
		char num[32];
		if (cur)
			draw_fill(y, r->x, r->w, attr);
		if (row->type == ROW_FOLD) {
			char buf[256], sym[128];
			struct trawl_index_event e;
			sym[0] = 0;
			if (b->img && trawl_index_event(b->ix, row->ev, &e, NULL) == TRAWL_OK &&
			    e.kind == TRAWL_EV_INSN)
				trawl_image_describe(b->img, e.pc, sym, sizeof sym);
			snprintf(buf, sizeof buf, "%*s ... %llu events folded%s%s", gutter - 1, "",
				 (unsigned long long)row->hidden, sym[0] ? " from " : "", sym);
			draw_str(y, r->x, r->w, buf, strlen(buf), CP(COL_FOLD));
			continue;
		}
		/* '>' marks the current event even without colour */
		snprintf(num, sizeof num, "%c%*llu ", cur ? '>' : ' ', gutter - 2,
			 (unsigned long long)row->line);
		draw_str(y, r->x, r->w, num, strlen(num), cur ? attr : CP(COL_UNKNOWN));
		const char *text;
		size_t len;
		char synth[128];
		event_line(b, row->offset, row->length, row->i, &text, &len);
		if (!b->text && (len = event_synth(b, row->ev, synth, sizeof synth)))
			text = synth;
		draw_str(y, r->x + gutter, r->w - gutter, text, len, attr);
	}
}
