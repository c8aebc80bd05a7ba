/* The memory pane: rows of 16 bytes from the pane's address as they were
 * after the current event. Bytes that differ from the reference (by value
 * or by being known) are highlighted; the reference is the event before the
 * current one unless a reference line was chosen with r. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "trawl/ete.h"
#include "tui/draw.h"

#define MAX_BYTES 4096
#define KNOWN(m, i) (((m)[(i) / 8] >> ((i) % 8)) & 1)

/* The memory pane: the rows at the current address as they were after the
 * current event, with the bytes that changed since the reference event
 * marked; at most MAX_BYTES are read per draw, into static buffers, and
 * the last rows of the address space are not wrapped. */
void pane_mem_draw(struct browser *b, const struct rect *r)
{
	static uint8_t val[MAX_BYTES], known[MAX_BYTES / 8], rval[MAX_BYTES], rknown[MAX_BYTES / 8];
	char title[256], ref[64];
	struct trawl_error err;
	if (r->h < 2 || r->w < 1 || !b->mem_set)
		return;
	uint32_t rows = (uint32_t)r->h - 1;
	if (rows * 16 > MAX_BYTES)
		rows = MAX_BYTES / 16;
	size_t len = (size_t)rows * 16;
	uint64_t addr = b->mem_addr;
	/* the last rows of the address space: do not wrap */
	if (addr + len < addr)
		len = (size_t)(0 - addr);
	uint64_t ref_ev = b->mem_ref;
	int have_ref = 1;
	if (ref_ev == NO_EVENT) {
		have_ref = b->ev > 0;
		ref_ev = b->ev ? b->ev - 1 : 0;
		snprintf(ref, sizeof ref, "the previous event");
	} else {
		struct trawl_index_event e;
		if (trawl_index_event(b->ix, ref_ev, &e, NULL) == TRAWL_OK)
			snprintf(ref, sizeof ref, "line %llu", (unsigned long long)e.line);
		else
			snprintf(ref, sizeof ref, "event %llu", (unsigned long long)ref_ev);
	}
	snprintf(title, sizeof title, "memory  %s = 0x%llx   highlighted: changed since %s",
		 b->mem_expr, (unsigned long long)b->mem_value, ref);
	draw_title(r, title);
	if (!len)
		return;
	if (trawl_index_mem_at(b->ix, b->ev, addr, len, val, known, &err)) {
		draw_str(r->y + 1, r->x + 1, r->w - 1, err.message, strlen(err.message),
			 CP(COL_ERROR));
		return;
	}
	if (!have_ref || trawl_index_mem_at(b->ix, ref_ev, addr, len, rval, rknown, &err)) {
		memset(rval, 0, len);
		memset(rknown, 0, (len + 7) / 8);
	}
	trawl_ete_image_fill(b->mem_img, addr, len, val, known);
	if (have_ref)
		trawl_ete_image_fill(b->mem_img, addr, len, rval, rknown);
	for (uint32_t row = 0; row < rows && (size_t)row * 16 < len; row++) {
		int y = r->y + 1 + (int)row;
		uint64_t a = addr + (uint64_t)row * 16;
		char t[32];
		snprintf(t, sizeof t, "%016llx:", (unsigned long long)a);
		draw_str(y, r->x, r->w, t, strlen(t), (int)A_BOLD);
		char ascii[16];
		memset(ascii, ' ', sizeof ascii);
		for (unsigned c = 0; c < 16; c++) {
			size_t i = (size_t)row * 16 + c;
			int x = r->x + 17 + (int)c * 3 + (c >= 8);
			if (x + 3 > r->x + r->w)
				break;
			if (i >= len)
				continue;
			int k = KNOWN(known, i), rk = KNOWN(rknown, i);
			int changed = k != rk || (k && val[i] != rval[i]);
			int sel = b->focus == FOCUS_MEM && a + c == b->sel_addr;
			int attr = changed ? CP(COL_CHANGED) | (int)A_BOLD : 0;
			if (!k && !changed)
				attr = CP(COL_UNKNOWN);
			/* reverse video keeps the changed/unknown colour visible */
			if (sel)
				attr |= (int)A_REVERSE;
			else if (b->target == FOCUS_MEM && a + c == b->sel_addr)
				attr |= (int)A_UNDERLINE;
			if (k)
				snprintf(t, sizeof t, "%02x", val[i]);
			else
				memcpy(t, "??", 3);
			draw_str(y, x + 1, 2, t, 2, attr);
			ascii[c] = !k ? '?' : val[i] >= 0x20 && val[i] < 0x7f ? (char)val[i] : '.';
		}
		int ax = r->x + 17 + 16 * 3 + 1 + 2;
		if (ax + 18 <= r->x + r->w) {
			draw_str(y, ax, 1, "|", 1, 0);
			draw_str(y, ax + 1, 16, ascii, 16, 0);
			draw_str(y, ax + 17, 1, "|", 1, 0);
		}
	}
}
