/* Queries on an open index (layout in format.h).
 *
 * Registers after event N: the checkpoint before N's epoch plus the
 * register writes of at most K events. Memory after event N, per 64-byte
 * block: the block's last snapshot at or before N plus its writes since
 * (only those of one epoch), then back-dated values for bytes still unknown.
 * Last/next writes are binary searches in write lists sorted by (key,
 * event). Every offset and length read from the file is checked.
 *
 * Point queries read the event table and the register replay's stretch of
 * the delta log with pread: in a freshly started process, the first touch
 * of each mapped page is a page fault, which costs several times a small
 * pread. Searches over the sorted tables and long walks use the mapping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/evpack.h"
#include "index/index-int.h"

#define CORRUPT(ix, what) TRAWL_CORRUPT(err, "'%s': damaged index: %s", (ix)->path, what)

/* Every record read from the mapping goes through here: its block is
 * checked on first touch (a mismatch marks the handle damaged, and the
 * query's result becomes TRAWL_ERR_CORRUPT through idx_result). */
static const uint8_t *rec_at(const struct idx_sec *s, uint64_t i)
{
	if (s->z)
		return idx_z_rec(s, i);
	const uint8_t *r = s->p + i * s->rec;
	idx_touch(s->ix, r, s->rec);
	return r;
}

static const uint8_t *fence_at(const struct idx_sec *s, uint64_t i)
{
	const uint8_t *r = s->fence + i * FENCE_REC;
	idx_touch(s->ix, r, FENCE_REC);
	return r;
}

static int key_less(const uint8_t *r, uint64_t a, uint64_t b, uint64_t key2)
{
	uint64_t ra = ld64(r);
	return ra < a || (ra == a && (ld64(r + 8) & key2) < b);
}

/* The fence (a small contiguous copy of every IDX_FENCE-th key) narrows
 * the search to one window first: a cold process then faults in a few
 * pages instead of one per bisection step of a big table. */
uint64_t idx_lower_bound2(const struct idx_sec *s, uint64_t a, uint64_t b)
{
	uint64_t lo = 0, hi = s->n;
	if (s->fence) {
		uint64_t flo = 0, fhi = s->nfence;
		while (flo < fhi) {
			uint64_t mid = flo + (fhi - flo) / 2;
			if (key_less(fence_at(s, mid), a, b, s->key2))
				flo = mid + 1;
			else
				fhi = mid;
		}
		if (flo == 0)
			return 0;
		lo = (flo - 1) * IDX_FENCE + 1;
		hi = flo * IDX_FENCE < s->n ? flo * IDX_FENCE : s->n;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const uint8_t *r = rec_at(s, mid);
		uint64_t ra = ld64(r), rb = ld64(r + 8) & s->key2;
		if (ra < a || (ra == a && rb < b))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- events ---- */

uint64_t trawl_index_event_count(const struct trawl_index *ix)
{
	return ix->nev;
}

static void ev_decode(const struct idx_evblk *k, uint32_t j, struct trawl_index_event *o)
{
	o->seq = k->first + j;
	o->line = idx_evblk_field(k, j, EVF_LINE);
	o->offset = idx_evblk_field(k, j, EVF_OFFSET);
	o->time = idx_evblk_field(k, j, EVF_TIME);
	o->pc = idx_evblk_field(k, j, EVF_PC);
	o->nlines = (uint32_t)idx_evblk_field(k, j, EVF_NLINES);
	o->length = (uint32_t)idx_evblk_field(k, j, EVF_LENGTH);
	o->encoding = (uint32_t)idx_evblk_field(k, j, EVF_ENCODING);
	o->depth = (int32_t)((uint32_t)idx_evblk_field(k, j, EVF_DEPTH) ^ EVB_DEPTH_BIAS);
	o->cpu = (uint16_t)idx_evblk_field(k, j, EVF_CPU);
	o->flags = (uint8_t)idx_evblk_field(k, j, EVF_FLAGS);
	o->kind = (uint8_t)idx_evblk_field(k, j, EVF_KIND);
	uint8_t iw = (uint8_t)idx_evblk_field(k, j, EVF_ISET);
	o->iset = iw & 0xf;
	o->width = iw >> 4;
	o->el = (uint8_t)idx_evblk_field(k, j, EVF_EL);
}

static enum trawl_status q_event(const struct trawl_index *ix, uint64_t ev,
				    struct trawl_index_event *o, struct trawl_error *err)
{
	if (ev >= ix->nev)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no event %llu (the trace has %llu)",
				       (unsigned long long)ev, (unsigned long long)ix->nev);
	struct idx_evblk k;
	enum trawl_status st = idx_evblk_one(ix, ev, &k, err);
	if (st)
		return st;
	ev_decode(&k, (uint32_t)(ev % EVB_EVENTS), o);
	return TRAWL_OK;
}

/* Sequential scans: a block of records at a time. */
static enum trawl_status q_events(const struct trawl_index *ix, uint64_t first, size_t count,
				     struct trawl_index_event *out, struct trawl_error *err)
{
	if (first > ix->nev || count > ix->nev - first)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND,
				       "no events %llu..%llu (the trace has %llu)",
				       (unsigned long long)first,
				       (unsigned long long)first + count,
				       (unsigned long long)ix->nev);
	for (size_t done = 0; done < count;) {
		uint64_t ev = first + done;
		struct idx_evblk k;
		enum trawl_status st = idx_evblk_get(ix, ev / EVB_EVENTS, &k, err);
		if (st)
			return st;
		uint32_t j = (uint32_t)(ev % EVB_EVENTS);
		for (; j < k.n && done < count; j++)
			ev_decode(&k, j, &out[done++]);
	}
	return TRAWL_OK;
}

/* Last event whose field f (EVF_LINE or _OFFSET, which never decrease, or
 * _TIME on an index whose times never do) is <= v: a bisection over the
 * blocks' bases (a block's base is its first event's value), then one
 * within the block. Every read is checked. *st is set on a read error. */
static int64_t last_le(const struct trawl_index *ix, unsigned f, uint64_t v,
		       enum trawl_status *st, struct trawl_error *err)
{
	*st = TRAWL_OK;
	if (!ix->nev || ix->first_ev[f] > v)
		return -1;
	if (ix->last_ev[f] <= v)
		return (int64_t)ix->nev - 1;
	/* invariant: base(lo) <= v, and every block from hi on is > v */
	uint64_t lo = 0, hi = ix->sec[SEC_EVBLK].n;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2, b;
		if ((*st = idx_evblk_base(ix, mid, f, &b, err)))
			return -1;
		if (b <= v)
			lo = mid;
		else
			hi = mid;
	}
	struct idx_evblk k;
	if ((*st = idx_evblk_get(ix, lo, &k, err)))
		return -1;
	uint32_t a = 0, z = k.n; /* last j in [a, z) with field <= v */
	while (z - a > 1) {
		uint32_t mid = a + (z - a) / 2;
		if (idx_evblk_field(&k, mid, f) <= v)
			a = mid;
		else
			z = mid;
	}
	return (int64_t)(k.first + a);
}

static enum trawl_status q_event_at_line(const struct trawl_index *ix, uint64_t line,
					    uint64_t *ev, struct trawl_error *err)
{
	enum trawl_status st;
	int64_t i = last_le(ix, 0, line, &st, err);
	if (st)
		return st;
	if (i < 0 || line > ix->last_line || line == 0)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "line %llu is not in the trace",
				       (unsigned long long)line);
	*ev = (uint64_t)i;
	return TRAWL_OK;
}

/* Time of event ev, read through the checked block cache. */
static enum trawl_status ev_time(const struct trawl_index *ix, uint64_t ev, uint64_t *t,
				 struct trawl_error *err)
{
	struct trawl_index_event o;
	enum trawl_status st = q_event(ix, ev, &o, err);
	*t = o.time;
	return st;
}

/* The event before the first one whose time is > t. Times only grow in
 * most traces, where that is the last event with time <= t (last_le). Where
 * they go backwards (a Fast Models trace's closing CADI line is a tick
 * before its last instruction; a glitch; two traces in one file) a
 * bisection over all events could land on any crossing of t, so each run
 * of non-decreasing times the builder listed is looked at in turn: the
 * runs before the one whose last time passes t are all <= t, and that run
 * is bisected. */
static enum trawl_status q_event_at_time(const struct trawl_index *ix, uint64_t t,
					    uint64_t *ev, struct trawl_error *err)
{
	enum trawl_status st;
	int64_t i;
	if (!ix->time_back) {
		i = last_le(ix, 2, t, &st, err);
		if (st)
			return st;
	} else if (ix->time_back > ID_TIME_BACK_MAX) {
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				       "times in this trace go backwards %llu times: a time does not "
				       "name one place in it (give a line instead)",
				       (unsigned long long)ix->time_back);
	} else {
		i = (int64_t)ix->nev - 1;
		uint64_t start = 0;
		for (uint64_t r = 0; r <= ix->time_back; r++) {
			uint64_t end = r < ix->time_back ? ld64(ix->time_back_ev + 8 * r) : ix->nev;
			if (end <= start || end > ix->nev)
				return CORRUPT(ix, "times-backwards record");
			uint64_t last;
			if ((st = ev_time(ix, end - 1, &last, err)))
				return st;
			if (last <= t) {
				start = end;
				continue;
			}
			/* first event of [start, end) with time > t */
			uint64_t a = start, z = end - 1;
			while (a < z) {
				uint64_t mid = a + (z - a) / 2, v;
				if ((st = ev_time(ix, mid, &v, err)))
					return st;
				if (v > t)
					z = mid;
				else
					a = mid + 1;
			}
			i = (int64_t)a - 1;
			break;
		}
	}
	if (i < 0)
		/* the unit too: a trace written in us with fractions is kept in
		 * ps, and "10" there is before "10.000000us" */
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND,
				       "time %llu is before the trace (its first event is at %llu%s%s)",
				       (unsigned long long)t, (unsigned long long)ix->first_ev[2],
				       ix->time_unit ? " " : "",
				       ix->time_unit ? trawl_time_unit_name(ix->time_unit) : "");
	*ev = (uint64_t)i;
	return TRAWL_OK;
}

static enum trawl_status q_event_at_offset(const struct trawl_index *ix, uint64_t off,
					      uint64_t *ev, struct trawl_error *err)
{
	enum trawl_status st;
	int64_t i = last_le(ix, 1, off, &st, err);
	if (st)
		return st;
	if (i < 0)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND,
				       "byte offset %llu is before the first event",
				       (unsigned long long)off);
	*ev = (uint64_t)i;
	return TRAWL_OK;
}

/* Delta-log range [*a, *b) of event ev, checked. */
static enum trawl_status delta_range(const struct trawl_index *ix, uint64_t ev, uint64_t *a,
				     uint64_t *b, struct trawl_error *err)
{
	enum trawl_status st;
	*b = ix->sec[SEC_DELTAS].len;
	if ((st = idx_ev_field(ix, ev, EVF_DELTA, a, err)) ||
	    (ev + 1 < ix->nev && (st = idx_ev_field(ix, ev + 1, EVF_DELTA, b, err))))
		return st;
	if (*a > *b || *b > ix->sec[SEC_DELTAS].len)
		return CORRUPT(ix, "event delta range");
	return TRAWL_OK;
}

/* One delta record, decoded with bounds checks. */
struct delta {
	unsigned tag;
	uint32_t reg;
	uint16_t off, size, zext;
	uint64_t addr, len;
	const uint8_t *value, *mask; /* mask NULL = all known */
};

/* Parse the record at base[*pos], which must end by base[end]. */
static enum trawl_status delta_parse(const struct trawl_index *ix, const uint8_t *base,
				     uint64_t *pos, uint64_t end, struct delta *d,
				     struct trawl_error *err)
{
	const uint8_t *p = base + *pos;
	uint64_t left = end - *pos;
	int mapped = base == ix->sec[SEC_DELTAS].p;
	if (!left)
		return CORRUPT(ix, "empty delta record");
	if (mapped && !idx_touch(ix, p, left < 17 ? left : 17))
		return idx_result(ix, TRAWL_OK, err);
	unsigned tag = p[0] & 0x7f;
	int masked = p[0] & DT_MASK;
	uint64_t n;
	d->tag = tag;
	d->mask = NULL;
	if (tag == DT_REG) {
		if (left < 11)
			return CORRUPT(ix, "short register delta");
		d->reg = ld32(p + 1);
		d->off = ld16(p + 5);
		d->size = ld16(p + 7);
		d->zext = ld16(p + 9);
		n = 11 + (uint64_t)d->size + (masked ? (d->size + 7u) / 8u : 0);
		d->value = p + 11;
		d->len = d->size;
	} else if (tag == DT_MEM) {
		if (left < 13)
			return CORRUPT(ix, "short memory delta");
		d->addr = ld64(p + 1);
		d->len = ld32(p + 9);
		n = 13 + d->len + (masked ? (d->len + 7) / 8 : 0);
		d->value = p + 13;
	} else if (tag == DT_CKPT) {
		if (left < 5)
			return CORRUPT(ix, "short checkpoint");
		d->len = ld32(p + 1);
		d->value = p + 5;
		n = 5 + d->len;
		masked = 0;
	} else if (tag == DT_CPU) {
		if (left < 3)
			return CORRUPT(ix, "short cpu record");
		d->reg = ld16(p + 1);
		d->value = NULL;
		d->len = 0;
		n = 3;
		masked = 0;
	} else if (tag == DT_CLOB) {
		if (left < 17)
			return CORRUPT(ix, "short clobber delta");
		d->addr = ld64(p + 1);
		d->len = ld64(p + 9);
		if (d->len == 0 || d->len > IDX_MAX_CLOBBER || masked)
			return CORRUPT(ix, "clobber delta"); /* a clobber has no mask */
		n = 17;
		d->value = NULL;
	} else {
		return CORRUPT(ix, "unknown delta record");
	}
	if (n > left)
		return CORRUPT(ix, "delta record overruns its event");
	if (mapped && !idx_touch(ix, p, n))
		return idx_result(ix, TRAWL_OK, err);
	if (masked)
		d->mask = d->value + d->len;
	*pos += n;
	return TRAWL_OK;
}

/* Bytes of the delta record at p (left bytes there), from its head; 0 when
 * the head is short or unknown (delta_parse then says what is wrong). */
static uint64_t delta_len(const uint8_t *p, uint64_t left)
{
	int masked = p[0] & DT_MASK;
	switch (p[0] & 0x7f) {
	case DT_REG:
		return left < 11 ? 0 : 11 + (uint64_t)ld16(p + 7) + (masked ? (ld16(p + 7) + 7u) / 8u : 0);
	case DT_MEM:
		return left < 13 ? 0 : 13 + (uint64_t)ld32(p + 9) + (masked ? (ld32(p + 9) + 7ull) / 8 : 0);
	case DT_CKPT:
		return left < 5 ? 0 : 5 + (uint64_t)ld32(p + 1);
	case DT_CPU:
		return 3;
	case DT_CLOB:
		return 17;
	default:
		return 0;
	}
}

/* The record at *pos of the delta log itself. In the compact kind the
 * record is first made contiguous: its head says how long it is. */
static enum trawl_status delta_next(const struct trawl_index *ix, uint64_t *pos, uint64_t end,
				    struct delta *d, struct trawl_error *err)
{
	const struct idx_sec *s = &ix->sec[SEC_DELTAS];
	if (!s->z)
		return delta_parse(ix, s->p, pos, end, d, err);
	if (*pos >= end || end > s->len)
		return CORRUPT(ix, "delta record outside the log");
	uint64_t left = end - *pos, n = left < 17 ? left : 17;
	const uint8_t *p = idx_z_span(s, *pos, n);
	if (p && (n = delta_len(p, left)) > left)
		n = left;
	if (p && n)
		p = idx_z_span(s, *pos, n);
	if (!p)
		return idx_result(ix, TRAWL_OK, err) ? TRAWL_ERR_CORRUPT
						     : CORRUPT(ix, "compressed block");
	uint64_t at = 0;
	enum trawl_status st = delta_parse(ix, p, &at, n ? n : left < 17 ? left : 17, d, err);
	if (!st)
		*pos += at;
	return st;
}

static int mask_bit(const uint8_t *mask, uint64_t i)
{
	return !mask || ((mask[i / 8] >> (i % 8)) & 1);
}

/* ---- registers ---- */

void trawl_index_regs_init(struct trawl_index_regs *r)
{
	memset(r, 0, sizeof *r);
}

void trawl_index_regs_release(struct trawl_index_regs *r)
{
	free(r->value);
	free(r->known);
	memset(r, 0, sizeof *r);
}

static int reg_place(uint32_t reg, uint32_t nsys, uint32_t *base, uint32_t *width)
{
	if (reg >= TRAWL_REG_SYS_BASE) {
		if (reg - TRAWL_REG_SYS_BASE >= nsys)
			return 0;
		*base = RF_CORE_BYTES + (reg - TRAWL_REG_SYS_BASE) * TRAWL_REG_SYS_BYTES;
		*width = TRAWL_REG_SYS_BYTES;
		return 1;
	}
	int32_t o = rf_core_offset(reg);
	if (o < 0)
		return 0;
	*base = (uint32_t)o;
	*width = reg <= TRAWL_REG_FPSCR ? 8 : trawl_reg_width(reg);
	return 1;
}

uint32_t trawl_index_regs_view(const struct trawl_index_regs *r, uint32_t reg,
			       const uint8_t **value, const uint8_t **known)
{
	uint32_t base, width;
	if (!reg_place(reg, r->nsys, &base, &width) || base + width > r->size)
		return 0;
	*value = r->value + base;
	*known = r->known + base;
	return width;
}

const char *trawl_index_reg_name(const struct trawl_index *ix, uint32_t reg)
{
	if (reg >= TRAWL_REG_SYS_BASE)
		return reg - TRAWL_REG_SYS_BASE < ix->nsys ? ix->sysnames[reg - TRAWL_REG_SYS_BASE]
							   : "?";
	const char *n = trawl_reg_name(reg);
	return n ? n : "?";
}

uint32_t trawl_index_reg_find(const struct trawl_index *ix, const char *name)
{
	for (uint32_t i = 0; i < ix->nsys; i++)
		if (strcasecmp(ix->sysnames[i], name) == 0)
			return TRAWL_REG_SYS_BASE + i;
	return UINT32_MAX;
}

/* Registers of `cpu` from a CKPT record's payload p[0, len). */
static enum trawl_status load_checkpoint(const struct trawl_index *ix, const uint8_t *p,
					 uint64_t len, uint16_t cpu, struct trawl_index_regs *r,
					 struct trawl_error *err)
{
	uint64_t pos = 0;
	if (len < 4)
		return CORRUPT(ix, "checkpoint");
	uint32_t ncpu = ld32(p);
	pos += 4;
	for (uint32_t c = 0; c < ncpu; c++) {
		if (len - pos < 8)
			return CORRUPT(ix, "checkpoint");
		uint16_t cc = ld16(p + pos);
		uint32_t nregs = ld32(p + pos + 4);
		pos += 8;
		for (uint32_t i = 0; i < nregs; i++) {
			if (len - pos < 8)
				return CORRUPT(ix, "checkpoint register");
			const uint8_t *q = p + pos;
			uint32_t reg = ld32(q), size = ld16(q + 4), all = q[6];
			uint64_t n = 8 + size + (all ? 0 : (size + 7) / 8);
			uint32_t base, width;
			if (n > len - pos || !reg_place(reg, ix->nsys, &base, &width) || size > width)
				return CORRUPT(ix, "checkpoint register");
			if (cc == cpu) {
				const uint8_t *mask = all ? NULL : q + 8 + size;
				for (uint32_t k = 0; k < size; k++) {
					int kn = mask_bit(mask, k);
					r->value[base + k] = kn ? q[8 + k] : 0;
					r->known[base + k] = (uint8_t)kn;
				}
			}
			pos += n;
		}
		if (cc == cpu)
			break;
	}
	return TRAWL_OK;
}

static enum trawl_status apply_reg_delta(const struct trawl_index *ix, const struct delta *d,
					 struct trawl_index_regs *r, struct trawl_error *err)
{
	uint32_t base, width;
	if (!reg_place(d->reg, ix->nsys, &base, &width) || (uint32_t)d->off + d->size > width ||
	    d->zext > width)
		return CORRUPT(ix, "register delta");
	for (uint32_t k = 0; k < d->size; k++) {
		int kn = mask_bit(d->mask, k);
		r->value[base + d->off + k] = kn ? d->value[k] : 0;
		r->known[base + d->off + k] = (uint8_t)kn;
	}
	for (uint32_t k = (uint32_t)d->off + d->size; k < d->zext; k++) {
		r->value[base + k] = 0;
		r->known[base + k] = 1;
	}
	return TRAWL_OK;
}

/* Registers after event ev: the buffer sized for the system registers
 * seen, then one read of the delta log from ev's epoch checkpoint to ev,
 * replayed. A single read of one contiguous stretch is why it is one
 * function: the bounds, the buffer and the replay share it. */
static enum trawl_status q_regs_at(const struct trawl_index *ix, uint64_t ev, uint16_t cpu,
				      struct trawl_index_regs *r, struct trawl_error *err)
{
	enum trawl_status st;
	if (ev >= ix->nev)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no event %llu",
				       (unsigned long long)ev);
	size_t size = RF_CORE_BYTES + (size_t)ix->nsys * TRAWL_REG_SYS_BYTES;
	if (r->cap < size) {
		uint8_t *v = realloc(r->value, size), *k = v ? realloc(r->known, size) : NULL;
		if (v)
			r->value = v;
		if (!v || !k)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		r->known = k;
		r->cap = size;
	}
	r->size = size;
	r->cpu = cpu;
	r->nsys = ix->nsys;
	memset(r->value, 0, size);
	memset(r->known, 0, size);
	/* one contiguous stretch of the delta log: the checkpoint of ev's
	 * epoch, then the records of every event up to ev */
	uint64_t first = ev / ix->K * ix->K, a, end = ix->sec[SEC_DELTAS].len;
	/* two single records, not the span between them: each read checks
	 * only the blocks it touches */
	if ((st = idx_ev_field(ix, first, EVF_DELTA, &a, err)) ||
	    (ev + 1 < ix->nev && (st = idx_ev_field(ix, ev + 1, EVF_DELTA, &end, err))))
		return st;
	if (a > end || end > ix->sec[SEC_DELTAS].len)
		return CORRUPT(ix, "event delta range");
	uint8_t small[16384], *buf = small;
	uint64_t len = end - a;
	if (len > sizeof small && !(buf = malloc((size_t)len)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	st = idx_sec_read(ix, SEC_DELTAS, a, buf, (size_t)len, err);
	uint64_t pos = 0;
	struct delta d;
	if (!st && !(st = delta_parse(ix, buf, &pos, len, &d, err)) && d.tag != DT_CKPT)
		st = CORRUPT(ix, "missing checkpoint");
	if (!st)
		st = load_checkpoint(ix, d.value, d.len, cpu, r, err);
	int cur = -1;
	while (!st && pos < len) {
		if ((st = delta_parse(ix, buf, &pos, len, &d, err)))
			break;
		if (d.tag == DT_CPU)
			cur = (int)d.reg;
		else if (d.tag == DT_REG && cur == cpu)
			st = apply_reg_delta(ix, &d, r, err);
	}
	if (buf != small)
		free(buf);
	return st;
}

/* One event's register deltas (delta log bytes [a, b) of buf) to fn. */
static enum trawl_status event_reg_writes(const struct trawl_index *ix, const uint8_t *buf,
					  uint64_t a, uint64_t b, uint64_t ev, uint16_t cpu,
					  uint64_t want, trawl_index_reg_fn fn, void *ctx,
					  int *stop, struct trawl_error *err)
{
	uint8_t pool[65536 + 65536 / 8];
	struct delta d;
	while (a < b && !*stop) {
		enum trawl_status st = delta_parse(ix, buf, &a, b, &d, err);
		if (st)
			return st;
		/* a CPU record names the event's own CPU (build.c); checkpoints
		 * open an epoch: neither is a write */
		if (d.tag != DT_REG || d.reg >= 64 || !((want >> d.reg) & 1))
			continue;
		struct trawl_reg_write w = { d.reg, d.off, d.size, d.zext, 0, 0, TRAWL_ALL_KNOWN };
		memcpy(pool, d.value, d.size);
		if (d.mask) {
			memcpy(pool + d.size, d.mask, (d.size + 7u) / 8u);
			w.known = d.size;
		}
		*stop = fn(ctx, ev, cpu, &w, pool);
	}
	return TRAWL_OK;
}

/* Delta offsets of events [ev, ev + k] (the one after the last event:
 * the end of DELTAS) and the cpus of [ev, ev + k), for a run inside one
 * block of events. */
static enum trawl_status run_deltas(const struct trawl_index *ix, uint64_t ev, uint32_t k,
				    uint64_t *d, uint16_t *cpu, struct trawl_error *err)
{
	struct idx_evblk blk;
	enum trawl_status st = idx_evblk_get(ix, ev / EVB_EVENTS, &blk, err);
	if (st)
		return st;
	uint32_t j0 = (uint32_t)(ev % EVB_EVENTS);
	for (uint32_t j = 0; j < k; j++) {
		d[j] = idx_evblk_field(&blk, j0 + j, EVF_DELTA);
		cpu[j] = (uint16_t)idx_evblk_field(&blk, j0 + j, EVF_CPU);
	}
	d[k] = ix->sec[SEC_DELTAS].len;
	if (ev + k < ix->nev)
		st = j0 + k < blk.n ? (d[k] = idx_evblk_field(&blk, j0 + k, EVF_DELTA), TRAWL_OK)
				    : idx_ev_field(ix, ev + k, EVF_DELTA, &d[k], err);
	return st;
}

/* Register writes of a run of events, a block of events and their
 * deltas at a time (one read each, not one per event); every event's
 * range is checked against the run before it is parsed. */
enum trawl_status trawl_index_reg_writes(const struct trawl_index *ix, uint64_t first,
					 uint64_t count, uint64_t want, trawl_index_reg_fn fn,
					 void *ctx, struct trawl_error *err)
{
	if (first > ix->nev || count > ix->nev - first)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no events %llu..%llu",
				       (unsigned long long)first, (unsigned long long)first + count);
	uint64_t d[EVB_EVENTS + 1];
	uint16_t cpu[EVB_EVENTS];
	uint8_t *buf = NULL;
	size_t cap = 0;
	enum trawl_status st = TRAWL_OK;
	int stop = 0;
	for (uint64_t done = 0; done < count && !st && !stop;) {
		uint64_t ev = first + done, in = EVB_EVENTS - ev % EVB_EVENTS;
		uint32_t k = (uint32_t)(count - done < in ? count - done : in);
		if ((st = run_deltas(ix, ev, k, d, cpu, err)))
			break;
		uint64_t a = d[0], end = d[k];
		if (a > end || end > ix->sec[SEC_DELTAS].len) {
			st = CORRUPT(ix, "event delta range");
			break;
		}
		if (end - a > cap) {
			uint8_t *nb = realloc(buf, (size_t)(end - a));
			if (!nb) {
				st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
				break;
			}
			buf = nb;
			cap = (size_t)(end - a);
		}
		if ((st = idx_sec_read(ix, SEC_DELTAS, a, buf, (size_t)(end - a), err)))
			break;
		for (uint32_t j = 0; j < k && !st && !stop; j++) {
			if (d[j] < a || d[j + 1] < d[j] || d[j + 1] > end) {
				st = CORRUPT(ix, "event delta range");
				break;
			}
			st = event_reg_writes(ix, buf, d[j] - a, d[j + 1] - a, ev + j, cpu[j], want,
					      fn, ctx, &stop, err);
		}
		done += k;
	}
	free(buf);
	return st;
}

/* ---- memory ---- */

/* The 64 bytes of block blk after event ev: val[] and a known mask. */
static enum trawl_status block_at(const struct trawl_index *ix, uint64_t blk, uint64_t ev,
				  uint8_t *val, uint64_t *known_out, struct trawl_error *err)
{
	enum trawl_status st;
	const struct idx_sec *sn = &ix->sec[SEC_SNAP], *w = &ix->sec[SEC_MEMW];
	uint64_t known = 0, from = 0;
	memset(val, 0, BLOCK);
	uint64_t i = idx_lower_bound2(sn, blk, ev + 1);
	if (i > 0 && ld64(rec_at(sn, i - 1)) == blk) {
		const uint8_t *r = rec_at(sn, i - 1);
		from = ld64(r + 8);
		memcpy(val, r + 16, BLOCK);
		known = ld64(r + 80);
	}
	for (i = idx_lower_bound2(w, blk, from); i < w->n; i++) {
		const uint8_t *r = rec_at(w, i);
		if (ld64(r) != blk || ld64(r + 8) > ev)
			break;
		uint64_t dl = ld64(r + 16);
		unsigned off = r[24], cnt = r[25];
		if (off + cnt > BLOCK || cnt == 0 || dl >= ix->sec[SEC_DELTAS].len)
			return CORRUPT(ix, "memory write record");
		struct delta d;
		uint64_t pos = dl;
		if ((st = delta_next(ix, &pos, ix->sec[SEC_DELTAS].len, &d, err)))
			return st;
		uint64_t first = blk + off;
		if ((d.tag != DT_MEM && d.tag != DT_CLOB) || first < d.addr ||
		    first - d.addr > d.len || d.len - (first - d.addr) < cnt)
			return CORRUPT(ix, "memory write record");
		uint64_t idx = first - d.addr;
		for (unsigned k = 0; k < cnt; k++) {
			uint64_t bit = (uint64_t)1 << (off + k);
			if (d.tag == DT_MEM && mask_bit(d.mask, idx + k)) {
				val[off + k] = d.value[idx + k];
				known |= bit;
			} else {
				val[off + k] = 0;
				known &= ~bit;
			}
		}
	}
	uint64_t unk = ~known;
	if (!unk) {
		*known_out = known;
		return TRAWL_OK;
	}
	/* bytes still unknown: the interval each is in starts at its last
	 * clobber (or at the start of the trace); reads in that interval
	 * tell its value */
	const struct idx_sec *cl = &ix->sec[SEC_CLOB], *bd = &ix->sec[SEC_BACKDATE];
	uint64_t left = unk;
	uint64_t c = idx_lower_bound2(cl, blk, ev + 1);
	while (left) {
		uint64_t key = 0, m = left;
		if (c > 0 && ld64(rec_at(cl, c - 1)) == blk) {
			const uint8_t *r = rec_at(cl, --c);
			m = left & ld64(r + 16);
			if (!m)
				continue;
			key = ld64(r + 8) + 1;
		}
		uint64_t b = idx_lower_bound2(bd, blk, key);
		if (b < bd->n) {
			const uint8_t *r = rec_at(bd, b);
			if (ld64(r) == blk && ld64(r + 8) == key) {
				uint64_t bk = ld64(r + 80) & m;
				for (unsigned k = 0; k < BLOCK; k++)
					if ((bk >> k) & 1)
						val[k] = r[16 + k];
				known |= bk;
			}
		}
		left &= ~m;
	}
	*known_out = known;
	return TRAWL_OK;
}

static enum trawl_status q_mem_at(const struct trawl_index *ix, uint64_t ev, uint64_t addr,
				     size_t len, uint8_t *value, uint8_t *known,
				     struct trawl_error *err)
{
	if (ev >= ix->nev)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no event %llu",
				       (unsigned long long)ev);
	/* the last byte may be 2^64-1 */
	if (len && addr + (len - 1) < addr)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "address range wraps around");
	memset(known, 0, (len + 7) / 8);
	size_t done = 0;
	while (done < len) {
		uint64_t a = addr + done, blk = a & BLOCK_MASK, off = a - blk;
		size_t cnt = BLOCK - off < len - done ? (size_t)(BLOCK - off) : len - done;
		uint8_t v[BLOCK];
		uint64_t k;
		enum trawl_status st = block_at(ix, blk, ev, v, &k, err);
		if (st)
			return st;
		for (size_t i = 0; i < cnt; i++) {
			value[done + i] = v[off + i];
			if ((k >> (off + i)) & 1)
				known[(done + i) / 8] |= (uint8_t)(1u << ((done + i) % 8));
		}
		done += cnt;
	}
	return TRAWL_OK;
}

/* ---- last and next writes ---- */

static uint64_t range_mask(uint64_t lo, uint64_t hi)
{
	if (lo >= 64 || hi <= lo)
		return 0;
	uint64_t m = hi - lo >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (hi - lo)) - 1);
	return m << lo;
}

/* Search one write list for key: the last record <= ev (dir < 0) or the
 * first > ev (dir > 0) whose byte mask meets `want`. */
static int search_writes(const struct idx_sec *s, uint64_t key, uint64_t ev, int dir,
			 uint64_t want, int is_reg, uint64_t *out)
{
	uint64_t i = idx_lower_bound2(s, key, ev + 1);
	for (;;) {
		const uint8_t *r;
		if (dir < 0) {
			if (i == 0)
				return 0;
			r = rec_at(s, --i);
		} else {
			if (i >= s->n)
				return 0;
			r = rec_at(s, i++);
		}
		if (ld64(r) != key)
			return 0;
		uint64_t m, ev2 = ld64(r + 8);
		if (is_reg) {
			uint64_t lo = ev2 >> REGW_EV_BITS & 0xfff, hi = ev2 >> (REGW_EV_BITS + 12);
			/* register ranges can be 256 bytes: compare as ranges */
			uint64_t wlo = want & 0xffff, whi = want >> 16;
			m = lo < whi && wlo < hi;
		} else {
			unsigned off = r[24], cnt = r[25];
			m = range_mask(off, off + cnt) & want; /* empty when damaged */
		}
		if (m) {
			*out = ev2 & s->key2;
			return 1;
		}
	}
}

/* Only the blocks of the range that have write records are visited (a
 * binary search skips to the next such block), so the cost follows the
 * number of written blocks, not the length: a range of 2^40 bytes costs
 * what its writes cost. */
static enum trawl_status write_mem(const struct trawl_index *ix, uint64_t ev, uint64_t addr,
				   uint64_t len, int dir, uint64_t *out, struct trawl_error *err)
{
	if (!len || addr + len - 1 < addr)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "bad address range");
	const struct idx_sec *w = &ix->sec[SEC_MEMW];
	uint64_t last = addr + len - 1, first_blk = addr & BLOCK_MASK, last_blk = last & BLOCK_MASK;
	int found = 0;
	uint64_t best = 0;
	uint64_t i = idx_lower_bound2(w, first_blk, 0);
	while (i < w->n) {
		uint64_t blk = ld64(rec_at(w, i));
		if (blk > last_blk || blk & ~BLOCK_MASK)
			break;
		uint64_t lo = blk < addr ? addr - blk : 0;
		uint64_t hi = blk == last_blk ? (last - blk) + 1 : BLOCK;
		uint64_t e;
		if (search_writes(w, blk, ev, dir, range_mask(lo, hi), 0, &e) &&
		    (!found || (dir < 0 ? e > best : e < best))) {
			best = e;
			found = 1;
		}
		if (blk == last_blk)
			break;
		uint64_t j = idx_lower_bound2(w, blk + BLOCK, 0);
		if (j <= i)
			return CORRUPT(ix, "memory write list out of order");
		i = j;
	}
	if (!found)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no %s write to that range",
				       dir < 0 ? "earlier" : "later");
	*out = best;
	return TRAWL_OK;
}

static enum trawl_status q_last_write_mem(const struct trawl_index *ix, uint64_t ev,
					     uint64_t addr, uint64_t len, uint64_t *out,
					     struct trawl_error *err)
{
	return write_mem(ix, ev, addr, len, -1, out, err);
}

static enum trawl_status q_next_write_mem(const struct trawl_index *ix, uint64_t ev,
					     uint64_t addr, uint64_t len, uint64_t *out,
					     struct trawl_error *err)
{
	return write_mem(ix, ev, addr, len, 1, out, err);
}

static enum trawl_status write_reg(const struct trawl_index *ix, uint64_t ev, uint16_t cpu,
				   uint32_t reg, uint32_t offset, uint32_t size, int dir,
				   uint64_t *out, struct trawl_error *err)
{
	uint64_t want = (uint64_t)offset | (uint64_t)(offset + size) << 16;
	if (!search_writes(&ix->sec[SEC_REGW], (uint64_t)cpu << 32 | reg, ev, dir, want, 1, out))
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no %s write to %s",
				       dir < 0 ? "earlier" : "later",
				       trawl_index_reg_name(ix, reg));
	return TRAWL_OK;
}

static enum trawl_status q_last_write_reg(const struct trawl_index *ix, uint64_t ev,
					     uint16_t cpu, uint32_t reg, uint32_t offset,
					     uint32_t size, uint64_t *out, struct trawl_error *err)
{
	return write_reg(ix, ev, cpu, reg, offset, size, -1, out, err);
}

static enum trawl_status q_next_write_reg(const struct trawl_index *ix, uint64_t ev,
					     uint16_t cpu, uint32_t reg, uint32_t offset,
					     uint32_t size, uint64_t *out, struct trawl_error *err)
{
	return write_reg(ix, ev, cpu, reg, offset, size, 1, out, err);
}

/* ---- PC visits ---- */

uint64_t trawl_index_pc_count(const struct trawl_index *ix, uint64_t pc)
{
	const struct idx_sec *s = &ix->sec[SEC_PCS];
	uint64_t a = idx_lower_bound2(s, pc, 0);
	uint64_t b = pc == UINT64_MAX ? s->n : idx_lower_bound2(s, pc + 1, 0);
	return b - a;
}

static enum trawl_status q_pc_visit(const struct trawl_index *ix, uint64_t pc, uint64_t i,
				       uint64_t *ev, struct trawl_error *err)
{
	const struct idx_sec *s = &ix->sec[SEC_PCS];
	uint64_t a = idx_lower_bound2(s, pc, 0);
	if (i >= s->n - a || ld64(rec_at(s, a + i)) != pc)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no such visit");
	*ev = ld64(rec_at(s, a + i) + 8);
	return TRAWL_OK;
}

static enum trawl_status q_pc_step(const struct trawl_index *ix, uint64_t pc, uint64_t ev,
				      int dir, uint64_t *out, struct trawl_error *err)
{
	const struct idx_sec *s = &ix->sec[SEC_PCS];
	uint64_t i = idx_lower_bound2(s, pc, dir > 0 ? ev + 1 : ev);
	const uint8_t *r = NULL;
	if (dir > 0 && i < s->n)
		r = rec_at(s, i);
	else if (dir < 0 && i > 0)
		r = rec_at(s, i - 1);
	if (!r || ld64(r) != pc)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no %s visit of 0x%llx",
				       dir > 0 ? "later" : "earlier", (unsigned long long)pc);
	*out = ld64(r + 8);
	return TRAWL_OK;
}

/* ---- changes ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Registers that differ between ev1 and ev2, cpu by cpu, reported into
 * *c; *stop is set when fn asks to stop. */
static enum trawl_status q_changed_regs(const struct trawl_index *ix, uint64_t ev1, uint64_t ev2,
					struct trawl_index_regs *r1, struct trawl_index_regs *r2,
					int (*fn)(void *ctx, const struct trawl_index_change *c),
					void *ctx, struct trawl_index_change *c, int *stop,
					struct trawl_error *err)
{
	enum trawl_status st;
	for (uint32_t cpu = 0; cpu < ix->ncpu; cpu++) {
		if ((st = q_regs_at(ix, ev1, (uint16_t)cpu, r1, err)) ||
		    (st = q_regs_at(ix, ev2, (uint16_t)cpu, r2, err)))
			return st;
		for (uint32_t k = 0; k <= TRAWL_REG_FFR + ix->nsys; k++) {
			uint32_t reg = k <= TRAWL_REG_FFR ? k : TRAWL_REG_SYS_BASE + k - TRAWL_REG_FFR - 1;
			const uint8_t *v1, *k1, *v2, *k2;
			uint32_t w = trawl_index_regs_view(r1, reg, &v1, &k1);
			if (!w || !trawl_index_regs_view(r2, reg, &v2, &k2))
				continue;
			int diff = 0;
			for (uint32_t b = 0; b < w && !diff; b++)
				diff = k1[b] != k2[b] || (k1[b] && v1[b] != v2[b]);
			if (!diff)
				continue;
			c->cpu = (uint16_t)cpu;
			c->reg = reg;
			if (fn(ctx, c)) {
				*stop = 1;
				return TRAWL_OK;
			}
		}
	}
	return TRAWL_OK;
}

/* The memory ranges written in (ev1, ev2], as [first block, last byte]
 * pairs sorted by block: memory use follows the number of writes, not
 * their sizes. */
static enum trawl_status q_written_ranges(const struct trawl_index *ix, uint64_t ev1, uint64_t ev2,
					  uint64_t **ranges, size_t *nb, struct trawl_error *err)
{
	enum trawl_status st;
	size_t cap = 0;
	for (uint64_t e = ev1 + 1; e <= ev2; e++) {
		uint64_t a, b;
		if ((st = delta_range(ix, e, &a, &b, err)))
			return st;
		while (a < b) {
			struct delta d;
			if ((st = delta_next(ix, &a, b, &d, err)))
				return st;
			if ((d.tag != DT_MEM && d.tag != DT_CLOB) || !d.len || d.addr + (d.len - 1) < d.addr)
				continue;
			if (*nb + 2 > cap) {
				cap = cap ? cap * 2 : 256;
				uint64_t *nr = realloc(*ranges, cap * sizeof *nr);
				if (!nr)
					return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
				*ranges = nr;
			}
			(*ranges)[(*nb)++] = d.addr & BLOCK_MASK;
			(*ranges)[(*nb)++] = d.addr + d.len - 1;
		}
	}
	if (*nb)
		qsort(*ranges, *nb / 2, 2 * sizeof **ranges, cmp_u64);
	return TRAWL_OK;
}

/* The written ranges compared block by block at ev1 and ev2 (each block
 * once even where ranges overlap); runs of differing bytes are reported
 * through *c, which arrives with the register fields of the last register
 * change (callers see them unchanged). */
static enum trawl_status q_changed_mem(const struct trawl_index *ix, uint64_t ev1, uint64_t ev2,
				       const uint64_t *ranges, size_t nb,
				       int (*fn)(void *ctx, const struct trawl_index_change *c),
				       void *ctx, struct trawl_index_change *c, struct trawl_error *err)
{
	enum trawl_status st;
	c->is_mem = 1;
	c->len = 0;
	uint64_t next = 0;  /* first block not yet compared */
	int any = 0, done = 0;
	for (size_t i = 0; i < nb && !done; i += 2) {
		uint64_t blk = ranges[i], last = ranges[i + 1] & BLOCK_MASK;
		if (any && blk < next)
			blk = next;
		for (; blk <= last; blk += BLOCK) {
			uint8_t a1[BLOCK], a2[BLOCK];
			uint64_t m1, m2;
			if ((st = block_at(ix, blk, ev1, a1, &m1, err)) ||
			    (st = block_at(ix, blk, ev2, a2, &m2, err)))
				return st;
			for (unsigned k = 0; k < BLOCK; k++) {
				int kn1 = (m1 >> k) & 1, kn2 = (m2 >> k) & 1;
				int diff = kn1 != kn2 || (kn1 && a1[k] != a2[k]);
				uint64_t a = blk + k;
				if (diff && c->len && c->addr + c->len == a) {
					c->len++;
				} else if (diff) {
					if (c->len && fn(ctx, c))
						return TRAWL_OK;
					c->addr = a;
					c->len = 1;
				}
			}
			any = 1;
			next = blk + BLOCK;
			if (next == 0) {
				done = 1; /* reached the top of the address space */
				break;
			}
		}
	}
	if (c->len)
		fn(ctx, c);
	return TRAWL_OK;
}

/* Registers first, then memory; fn returning nonzero stops the walk. */
static enum trawl_status q_changes(const struct trawl_index *ix, uint64_t ev1, uint64_t ev2,
				      int (*fn)(void *ctx, const struct trawl_index_change *c),
				      void *ctx, struct trawl_error *err)
{
	enum trawl_status st;
	if (ev1 >= ix->nev || ev2 >= ix->nev || ev1 > ev2)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "bad event range");
	struct trawl_index_regs r1, r2;
	trawl_index_regs_init(&r1);
	trawl_index_regs_init(&r2);
	uint64_t *ranges = NULL;
	size_t nb = 0;
	int stop = 0;
	struct trawl_index_change c;
	memset(&c, 0, sizeof c);
	if (!(st = q_changed_regs(ix, ev1, ev2, &r1, &r2, fn, ctx, &c, &stop, err)) && !stop &&
	    !(st = q_written_ranges(ix, ev1, ev2, &ranges, &nb, err)))
		st = q_changed_mem(ix, ev1, ev2, ranges, nb, fn, ctx, &c, err);
	free(ranges);
	trawl_index_regs_release(&r1);
	trawl_index_regs_release(&r2);
	return st;
}

/* ---- public entry points: a query that met a damaged block fails ---- */

enum trawl_status trawl_index_event(const struct trawl_index *ix, uint64_t ev,
				    struct trawl_index_event *o, struct trawl_error *err)
{
	return idx_result(ix, q_event(ix, ev, o, err), err);
}

enum trawl_status trawl_index_events(const struct trawl_index *ix, uint64_t first, size_t count,
				     struct trawl_index_event *out, struct trawl_error *err)
{
	return idx_result(ix, q_events(ix, first, count, out, err), err);
}

enum trawl_status trawl_index_event_at_line(const struct trawl_index *ix, uint64_t line,
					    uint64_t *ev, struct trawl_error *err)
{
	return idx_result(ix, q_event_at_line(ix, line, ev, err), err);
}

enum trawl_status trawl_index_event_at_time(const struct trawl_index *ix, uint64_t t,
					    uint64_t *ev, struct trawl_error *err)
{
	return idx_result(ix, q_event_at_time(ix, t, ev, err), err);
}

enum trawl_status trawl_index_event_at_offset(const struct trawl_index *ix, uint64_t off,
					      uint64_t *ev, struct trawl_error *err)
{
	return idx_result(ix, q_event_at_offset(ix, off, ev, err), err);
}

enum trawl_status trawl_index_regs_at(const struct trawl_index *ix, uint64_t ev, uint16_t cpu,
				      struct trawl_index_regs *r, struct trawl_error *err)
{
	return idx_result(ix, q_regs_at(ix, ev, cpu, r, err), err);
}

enum trawl_status trawl_index_mem_at(const struct trawl_index *ix, uint64_t ev, uint64_t addr,
				     size_t len, uint8_t *value, uint8_t *known,
				     struct trawl_error *err)
{
	return idx_result(ix, q_mem_at(ix, ev, addr, len, value, known, err), err);
}

enum trawl_status trawl_index_last_write_mem(const struct trawl_index *ix, uint64_t ev,
					     uint64_t addr, uint64_t len, uint64_t *out,
					     struct trawl_error *err)
{
	return idx_result(ix, q_last_write_mem(ix, ev, addr, len, out, err), err);
}

enum trawl_status trawl_index_next_write_mem(const struct trawl_index *ix, uint64_t ev,
					     uint64_t addr, uint64_t len, uint64_t *out,
					     struct trawl_error *err)
{
	return idx_result(ix, q_next_write_mem(ix, ev, addr, len, out, err), err);
}

enum trawl_status trawl_index_last_write_reg(const struct trawl_index *ix, uint64_t ev,
					     uint16_t cpu, uint32_t reg, uint32_t offset,
					     uint32_t size, uint64_t *out, struct trawl_error *err)
{
	return idx_result(ix, q_last_write_reg(ix, ev, cpu, reg, offset, size, out, err), err);
}

enum trawl_status trawl_index_next_write_reg(const struct trawl_index *ix, uint64_t ev,
					     uint16_t cpu, uint32_t reg, uint32_t offset,
					     uint32_t size, uint64_t *out, struct trawl_error *err)
{
	return idx_result(ix, q_next_write_reg(ix, ev, cpu, reg, offset, size, out, err), err);
}

enum trawl_status trawl_index_pc_visit(const struct trawl_index *ix, uint64_t pc, uint64_t i,
				       uint64_t *ev, struct trawl_error *err)
{
	return idx_result(ix, q_pc_visit(ix, pc, i, ev, err), err);
}

enum trawl_status trawl_index_pc_step(const struct trawl_index *ix, uint64_t pc, uint64_t ev,
				      int dir, uint64_t *out, struct trawl_error *err)
{
	return idx_result(ix, q_pc_step(ix, pc, ev, dir, out, err), err);
}

enum trawl_status trawl_index_changes(const struct trawl_index *ix, uint64_t ev1, uint64_t ev2,
				      int (*fn)(void *ctx, const struct trawl_index_change *c),
				      void *ctx, struct trawl_error *err)
{
	return idx_result(ix, q_changes(ix, ev1, ev2, fn, ctx, err), err);
}
