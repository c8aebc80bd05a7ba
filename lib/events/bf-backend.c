/* trawl_reader backend for Barrelfish trace dumps ('#' header lines, then
 * "CORE TIMESTAMP RAWHEX" lines; bf-dump.h): the events of all cores
 * merged by time (a dump interleaves cores, each in its own order), named
 * from the definitions file of trawl_reader_options.defs. An id the
 * definitions do not name gets the class import-bf makes up for it
 * ("subsysS:eventE", one u32 field arg), so nothing is dropped.
 *
 * The dump is read whole before the first event: merging by time needs
 * every core's events, and a dump is the size of the kernel's buffers
 * (Bfscope sends at most 2 MiB at a time). Times are the dump's ticks.
 *
 * A word's 32-bit argument is its class's first field (the recorder's fast
 * path: trawl/event.h, "the first field's low 32 bits"); the dump has no
 * value for further fields, which are 0. Signed types take the argument
 * sign-extended from 32 bits (C widened a narrower signed value so); one
 * that does not fit its field is damage. Damage (a bad line, a misfit
 * argument) ends the dump: the events before it are handed out, then the
 * error, as a damaged CTF stream is read up to the damage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/reader-backend.h"
#include "events/sw-batch.h"
#include "trawl/bf-dump.h"
#include "trawl/sw-defs.h"

struct bf_reader {
	struct trawl_bf_event *ev;
	size_t n, cap, next;
	struct trawl_sw_class *cls;     /* sorted by id */
	size_t ncls, ccap;
	struct sw_batch b;
	int nomem;
	/* a bad line, a misfit argument or a last line cut short: the error
	 * handed out after the events before it */
	struct trawl_error damage;
};

/* "CORE TIMESTAMP RAWHEX": decimal, decimal or 0x hex, hex (0x optional) */
static int bf_line(const char *s, const char *e)
{
	for (int field = 0; field < 3; field++) {
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		const char *d = s;
		int hex = field == 2;
		if (field && e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			s += 2;
			d = s;
			hex = 1;
		}
		while (s < e && ((*s >= '0' && *s <= '9') ||
				 (hex && ((*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))))
			s++;
		if (s == d || (s < e && *s != ' ' && *s != '\t' && *s != '\r'))
			return 0;
	}
	while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	return s == e;
}

/* The first line that is neither blank nor a '#' header is an event line
 * (later ones are checked by the parser, which names a bad one's line and
 * column). Higher than Tarmac's 2: a Tarmac record never starts with
 * three bare numbers. */
static int bf_probe(const char *data, size_t len)
{
	size_t n = len < 65536 ? len : 65536, pos = 0;
	while (pos < n) {
		const char *nl = memchr(data + pos, '\n', n - pos);
		const char *s = data + pos, *e = nl ? nl : data + n;
		pos = (size_t)(e - data) + 1;
		while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s == e || *s == '#')
			continue;
		return bf_line(s, e) ? 3 : 0;
	}
	return 0;
}

static int collect(void *ctx, const struct trawl_bf_event *ev)
{
	struct bf_reader *r = ctx;
	if (!trawl_grow((void **)&r->ev, &r->cap, r->n + 1, sizeof *r->ev))
		return r->nomem = 1;
	r->ev[r->n++] = *ev;
	return 0;
}

static int cls_cmp(const void *a, const void *b)
{
	const struct trawl_sw_class *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* qsort and bsearch want a valid array even when it is empty */
static void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

static const struct trawl_sw_class *find(const struct bf_reader *r, uint32_t id)
{
	struct trawl_sw_class key = { .id = id };
	return r->ncls ? bsearch(&key, r->cls, r->ncls, sizeof *r->cls, cls_cmp) : NULL;
}

static int add_class(struct bf_reader *r, const struct trawl_sw_class *c)
{
	if (!trawl_grow((void **)&r->cls, &r->ccap, r->ncls + 1, sizeof *r->cls))
		return -1;
	r->cls[r->ncls++] = *c;
	return 0;
}

/* The first event (in dump order) whose argument does not fit its class's
 * first field ends the dump there. Only the definitions' classes can
 * refuse one: a made-up class's field is u32. */
static void check_args(struct bf_reader *r, const char *text, size_t len, const char *file)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct trawl_sw_class *c = find(r, (uint32_t)(r->ev[i].word >> 32));
		uint32_t arg = (uint32_t)r->ev[i].word;
		uint64_t v;
		if (!c || trawl_bf_arg_value(c->fields[0].type, arg, &v))
			continue;
		trawl_error_set(&r->damage, TRAWL_ERR_FORMAT,
				"argument %u (0x%x) does not fit field '%s' (%s) of %s: this event and the rest "
				"of the dump are not read",
				(unsigned)arg, (unsigned)arg, c->fields[0].name,
				trawl_sw_type_name(c->fields[0].type), c->name);
		trawl_bf_error_at_word(&r->damage, text, len, file, r->ev[i].line);
		r->n = i;
		return;
	}
}

/* The definitions' classes, then one made up per id they lack; the table
 * is complete before the first event, so class pointers stay valid. The
 * arguments are checked against the definitions' fields in between, so no
 * class is made up for an id only the events after damage use. */
static enum trawl_status make_classes(struct bf_reader *r, const char *defs_path, const char *text, size_t len,
				      const char *file, struct trawl_error *err)
{
	struct trawl_defs *d = NULL;
	if (defs_path) {
		enum trawl_status st = trawl_defs_load(&d, defs_path, err);
		if (st != TRAWL_OK)
			return st;
	}
	for (size_t i = 0; d && i < d->nsubsys; i++)
		for (size_t j = 0; j < d->subsys[i].nevents; j++) {
			struct trawl_sw_class c;
			trawl_defs_class(&d->subsys[i], &d->subsys[i].events[j], &c);
			if (add_class(r, &c))
				r->nomem = 1;
		}
	trawl_defs_destroy(d);
	sort(r->cls, r->ncls, sizeof *r->cls, cls_cmp);
	check_args(r, text, len, file);
	/* the ids the dump uses, once each, sorted */
	uint32_t *ids = malloc((r->n ? r->n : 1) * sizeof *ids);
	size_t nids = 0, known = r->ncls;
	if (!ids)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < r->n; i++)
		ids[i] = (uint32_t)(r->ev[i].word >> 32);
	sort(ids, r->n, sizeof *ids, id_cmp);
	for (size_t i = 0; i < r->n; i++)
		if (!nids || ids[nids - 1] != ids[i])
			ids[nids++] = ids[i];
	for (size_t i = 0; i < nids && !r->nomem; i++) {
		struct trawl_sw_class g = { .id = ids[i], .nfields = 1 };
		if (known && bsearch(&g, r->cls, known, sizeof *r->cls, cls_cmp))
			continue;
		snprintf(g.name, sizeof g.name, "subsys%u:event%u", g.id >> 16, g.id & 0xffff);
		strcpy(g.fields[0].name, "arg");
		g.fields[0].type = TRAWL_SW_U32;
		if (add_class(r, &g))
			r->nomem = 1;
	}
	free(ids);
	sort(r->cls, r->ncls, sizeof *r->cls, cls_cmp);
	return r->nomem ? trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory") : TRAWL_OK;
}

/* The whole input as one text: chunks are only valid until the next one. */
static enum trawl_status read_all(struct trawl_input *in, const struct trawl_chunk *first, char **text,
				  size_t *len, struct trawl_error *err)
{
	size_t cap = 0;
	struct trawl_chunk c = first ? *first : (struct trawl_chunk){ 0 };
	enum trawl_status st = first ? TRAWL_OK : TRAWL_END;
	*text = NULL;
	*len = 0;
	while (st == TRAWL_OK) {
		if (!trawl_grow((void **)text, &cap, *len + c.len + 1, 1))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		memcpy(*text + *len, c.data, c.len);
		*len += c.len;
		if (c.last)
			break;
		st = trawl_input_next(in, &c, err);
	}
	return st < 0 ? st : TRAWL_OK;
}

static void bf_close(void *state);

static enum trawl_status bf_open(void **state, struct trawl_input *in, const struct trawl_chunk *first,
				 const struct trawl_reader_options *opt, struct trawl_error *err)
{
	struct bf_reader *r = calloc(1, sizeof *r);
	char *text = NULL;
	size_t len = 0;
	if (!r)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	sw_batch_init(&r->b, opt);
	struct trawl_bf_stats bs;
	const char *name = trawl_input_name(in);
	enum trawl_status st = read_all(in, first, &text, &len, err);
	if (st == TRAWL_OK) {
		struct trawl_error perr;
		trawl_error_clear(&perr);
		enum trawl_status ps = trawl_bf_parse(text ? text : "", len, name, collect, r, &bs, &perr);
		/* a bad line: the events before it are kept, the error comes after them */
		if (ps == TRAWL_ERR_FORMAT)
			r->damage = perr;
		else if (ps != TRAWL_OK && !r->nomem) {
			st = ps;
			if (err)
				*err = perr;
		}
	}
	if (st == TRAWL_OK && !r->damage.status && bs.cut_line) {
		trawl_bf_error_cut(&r->damage, name, &bs);
	}
	if (r->nomem)
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (st == TRAWL_OK)
		st = make_classes(r, opt ? opt->defs : NULL, text ? text : "", len, name, err);
	free(text);
	if (st != TRAWL_OK) {
		bf_close(r);
		return st;
	}
	sort(r->ev, r->n, sizeof *r->ev, trawl_bf_event_cmp);
	r->b.stats.bytes = len;
	*state = r;
	return TRAWL_OK;
}

static enum trawl_status bf_next(void *state, struct trawl_event_batch *batch, struct trawl_error *err)
{
	struct bf_reader *r = state;
	sw_batch_reset(&r->b);
	for (; r->next < r->n && !sw_batch_full(&r->b); r->next++) {
		const struct trawl_bf_event *b = &r->ev[r->next];
		struct trawl_sw_event ev = { .time = b->time, .cpu = b->core, .cls = find(r, (uint32_t)(b->word >> 32)) };
		ev.vals[0] = (uint32_t)b->word;
		if (ev.cls) /* it fits: check_args kept only the events whose arguments do */
			(void)trawl_bf_arg_value(ev.cls->fields[0].type, (uint32_t)b->word, &ev.vals[0]);
		if (sw_batch_push(&r->b, &ev, TRAWL_TIME_CYC, b->line, 0) != 0)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	if (!r->b.n) {
		if (!r->damage.status)
			return TRAWL_END;
		if (err)
			*err = r->damage;
		return r->damage.status;
	}
	sw_batch_take(&r->b, batch);
	return TRAWL_OK;
}

static const struct trawl_reader_stats *bf_stats(const void *state)
{
	const struct bf_reader *r = state;
	return &r->b.stats;
}

static void bf_close(void *state)
{
	struct bf_reader *r = state;
	if (!r)
		return;
	sw_batch_free(&r->b);
	free(r->ev);
	free(r->cls);
	free(r);
}

const struct trawl_reader_backend trawl_bfdump_backend = {
	TRAWL_FORMAT_BFDUMP, "bfdump", bf_probe, bf_open, bf_next, bf_stats, bf_close, NULL, NULL, NULL,
};
