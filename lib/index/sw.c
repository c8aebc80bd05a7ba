/* Building the software-event sections (docs/index-format.md, kind 2):
 * per event its thread, stream and ids, and the events of each cpu and of
 * each thread in event order, which for a trace merged by time is time
 * order, so a view finds any time in a core's or thread's events by
 * bisection. */
#include "index/sw.h"

#include <string.h>

#include "index/format.h"

enum trawl_status idx_sw_init(struct idx_sw *s, size_t memory, const char *dir, struct trawl_error *err)
{
	memset(s, 0, sizeof *s);
	s->ev.fd = -1;
	/* the spool is made at the first software event: a Tarmac build pays nothing */
	(void)err;
	idx_sorter_init(&s->cpu, SW_REC, memory / 4, dir, NULL);
	idx_sorter_init(&s->thread, SW_REC, memory / 4, dir, NULL);
	return TRAWL_OK;
}

static enum trawl_status put_rec(struct idx_sw *s, const struct trawl_event *e, struct trawl_error *err)
{
	uint8_t r[SW_REC] = { 0 };
	if (e && e->kind == TRAWL_EV_SW) {
		st32(r, e->u.sw.tid);
		st32(r + 4, e->u.sw.stream);
		st16(r + 8, e->u.sw.subsys);
		st16(r + 10, e->u.sw.event);
		st32(r + 12, e->u.sw.arg);
	}
	s->recs++;
	return idx_file_write(&s->ev, r, SW_REC, err);
}

static enum trawl_status sorted(struct idx_sorter *so, uint64_t key, uint64_t nev, struct trawl_error *err)
{
	uint8_t *p;
	enum trawl_status st = idx_sorter_add(so, &p, err);
	if (st)
		return st;
	st64(p, key);
	st64(p + 8, nev);
	return TRAWL_OK;
}

enum trawl_status idx_sw_add(struct idx_sw *s, const struct trawl_event *e, uint64_t nev,
			     struct trawl_error *err)
{
	enum trawl_status st;
	if (!s->open) {
		if (e->kind != TRAWL_EV_SW)
			return TRAWL_OK;
		if ((st = idx_file_temp(&s->ev, s->cpu.dir, "software event spool", err)))
			return st;
		s->open = 1;
		while (s->recs < nev)
			if ((st = put_rec(s, NULL, err)))
				return st;
	}
	if ((st = put_rec(s, e, err)))
		return st;
	if (e->kind != TRAWL_EV_SW)
		return TRAWL_OK;
	s->n++;
	if ((st = sorted(&s->cpu, e->cpu, nev, err)) || (st = sorted(&s->thread, e->u.sw.tid, nev, err)))
		return st;
	return TRAWL_OK;
}

void idx_sw_release(struct idx_sw *s)
{
	idx_file_close(&s->ev);
	idx_sorter_release(&s->cpu);
	idx_sorter_release(&s->thread);
}
