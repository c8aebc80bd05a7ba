/* CTF 1.8 metadata text and packet encoding (layout table in rec-ctf.h). */
#include "trawl/rec-ctf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	unsigned size;
} types[] = {
	[TRAWL_REC_U8] = { "uint8_t", 1 },   [TRAWL_REC_U16] = { "uint16_t", 2 },
	[TRAWL_REC_U32] = { "uint32_t", 4 }, [TRAWL_REC_U64] = { "uint64_t", 8 },
	[TRAWL_REC_S8] = { "int8_t", 1 },    [TRAWL_REC_S16] = { "int16_t", 2 },
	[TRAWL_REC_S32] = { "int32_t", 4 },  [TRAWL_REC_S64] = { "int64_t", 8 },
};

size_t trawl_ctf_type_size(unsigned type)
{
	return type < sizeof types / sizeof types[0] ? types[type].size : 0;
}

const char *trawl_ctf_type_name(unsigned type)
{
	return type < sizeof types / sizeof types[0] ? types[type].name : NULL;
}

void trawl_ctf_meta_init(struct trawl_ctf_meta *m)
{
	memset(m, 0, sizeof *m);
	strcpy(m->tracer, "trawl-rec");
}

void trawl_ctf_meta_release(struct trawl_ctf_meta *m)
{
	free(m->classes);
	free(m->order);
	m->classes = NULL;
	m->order = NULL;
	m->nclasses = m->cap = 0;
}

/* Position in `order` where id is or would go. */
static size_t order_pos(const struct trawl_ctf_meta *m, uint32_t id)
{
	size_t lo = 0, hi = m->nclasses;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->classes[m->order[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct trawl_ctf_class *trawl_ctf_meta_find(const struct trawl_ctf_meta *m, uint32_t id)
{
	size_t i = order_pos(m, id);
	return i < m->nclasses && m->classes[m->order[i]].id == id ? &m->classes[m->order[i]] : NULL;
}

int trawl_ctf_meta_add(struct trawl_ctf_meta *m, const struct trawl_ctf_class *c)
{
	if (trawl_ctf_meta_find(m, c->id))
		return 0;
	if (c->nfields > TRAWL_REC_MAX_FIELDS || m->nclasses >= UINT32_MAX)
		return -EINVAL;
	if (m->nclasses == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 32;
		void *n = realloc(m->classes, ncap * sizeof *m->classes);
		if (!n)
			return -ENOMEM;
		m->classes = n;
		n = realloc(m->order, ncap * sizeof *m->order);
		if (!n)
			return -ENOMEM;
		m->order = n;
		m->cap = ncap;
	}
	/* classes are big: append them, keep only the small index sorted */
	size_t pos = order_pos(m, c->id);
	memmove(m->order + pos + 1, m->order + pos, (m->nclasses - pos) * sizeof *m->order);
	m->order[pos] = (uint32_t)m->nclasses;
	m->classes[m->nclasses++] = *c;
	return 1;
}

/* A string builder that keeps going after an allocation failure and
 * reports it at the end. */
struct sbuf {
	char *s;
	size_t len, cap;
	int failed;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	if (b->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t ncap = (b->cap + (size_t)n + 1) * 2;
		char *s = realloc(b->s, ncap);
		if (!s) {
			b->failed = 1;
			return;
		}
		b->s = s;
		b->cap = ncap;
	}
}

/* Quote a string for TSDL (names come from definitions: escape " and \). */
static void sb_quoted(struct sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_printf(b, "\\%c", *s);
		else if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
			sb_printf(b, "%c", *s);
	}
	sb_printf(b, "\"");
}

/* One event block: the only place its layout is written (trawl defs
 * writes the same blocks as a fragment through trawl_ctf_event_text). */
static void sb_event(struct sbuf *b, const struct trawl_ctf_class *c)
{
	sb_printf(b, "\nevent {\n\tname = ");
	sb_quoted(b, c->name);
	sb_printf(b, ";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n", c->id);
	for (unsigned f = 0; f < c->nfields; f++) {
		const char *t = trawl_ctf_type_name(c->fields[f].type);
		sb_printf(b, "\t\t%s %s;\n", t ? t : "uint64_t", c->fields[f].name);
	}
	sb_printf(b, "\t};\n};\n");
}

char *trawl_ctf_event_text(const struct trawl_ctf_class *c)
{
	struct sbuf b = { 0 };
	sb_event(&b, c);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* The whole TSDL document, made from the class table each time it is written
 * (trawl_ctf_meta_write replaces the file), so a reader never sees half an
 * update. Byte order is the host's, as the packets are; event names go
 * through sb_quoted, and classes go out in id order (order[]) so the text
 * does not depend on when each was registered. */
char *trawl_ctf_meta_text(const struct trawl_ctf_meta *m)
{
	struct sbuf b = { 0 };
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	const char *bo = "be";
#else
	const char *bo = "le";
#endif
	sb_printf(&b, "/* CTF 1.8 */\n\n");
	for (unsigned t = TRAWL_REC_U8; t <= TRAWL_REC_S64; t++)
		sb_printf(&b, "typealias integer { size = %u; align = 8; signed = %s; } := %s;\n",
			  types[t].size * 8, t >= TRAWL_REC_S8 ? "true" : "false", types[t].name);
	sb_printf(&b,
		  "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = %s;\n"
		  "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint32_t stream_id;\n\t};\n};\n\n",
		  bo);
	sb_printf(&b, "env {\n\tdomain = \"trawl\";\n\ttracer_name = ");
	sb_quoted(&b, m->tracer);
	sb_printf(&b, ";\n\tpid = %u;\n\tprocname = ", m->pid);
	sb_quoted(&b, m->procname);
	sb_printf(&b, ";\n%s};\n\n", m->env_extra ? m->env_extra : "");
	sb_printf(&b,
		  "clock {\n\tname = trawl;\n"
		  "\tdescription = \"cycle counter calibrated to CLOCK_MONOTONIC nanoseconds\";\n"
		  "\tfreq = 1000000000;\n\tprecision = 10;\n\toffset_s = %lld;\n\toffset = %u;\n"
		  "\tabsolute = false;\n};\n\n",
		  (long long)m->clock_offset_s, m->clock_offset_ns);
	sb_printf(&b, "typealias integer { size = 64; align = 8; signed = false; map = clock.trawl.value; } "
		      ":= trawl_clock_t;\n\n");
	sb_printf(&b,
		  "stream {\n\tid = 0;\n\tpacket.context := struct {\n"
		  "\t\ttrawl_clock_t timestamp_begin;\n\t\ttrawl_clock_t timestamp_end;\n"
		  "\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
		  "\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
		  "\t\tuint32_t cpu_id;\n\t\tuint32_t thread_id;\n\t};\n"
		  "\tevent.header := struct {\n\t\tuint32_t id;\n\t\ttrawl_clock_t timestamp;\n\t};\n};\n");
	for (size_t i = 0; i < m->nclasses; i++)
		sb_event(&b, &m->classes[m->order[i]]);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

int trawl_ctf_meta_write(const struct trawl_ctf_meta *m, const char *dir)
{
	char path[4096], tmp[4200];
	int rc = 0;
	char *text = trawl_ctf_meta_text(m);
	if (!text)
		return -ENOMEM;
	snprintf(path, sizeof path, "%s/metadata", dir);
	snprintf(tmp, sizeof tmp, "%s/.metadata.tmp", dir);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		rc = -errno;
		goto out;
	}
	size_t len = strlen(text);
	if (fwrite(text, 1, len, f) != len)
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
out:
	free(text);
	return rc;
}

int trawl_ctf_packet_reserve(struct trawl_ctf_packet *p, size_t more)
{
	if (p->len + more <= p->cap)
		return 0;
	size_t ncap = p->cap ? p->cap : 4096;
	while (ncap < p->len + more)
		ncap *= 2;
	uint8_t *n = realloc(p->buf, ncap);
	if (!n)
		return -ENOMEM;
	p->buf = n;
	p->cap = ncap;
	return 0;
}

void trawl_ctf_packet_begin(struct trawl_ctf_packet *p)
{
	p->len = 0;
	p->nevents = 0;
	p->ts_begin = p->ts_end = 0;
	if (trawl_ctf_packet_reserve(p, TRAWL_CTF_PREAMBLE) == 0) {
		memset(p->buf, 0, TRAWL_CTF_PREAMBLE);
		p->len = TRAWL_CTF_PREAMBLE;
	}
}

int trawl_ctf_packet_event(struct trawl_ctf_packet *p, const struct trawl_ctf_class *c, uint64_t ts,
			   const uint64_t *vals)
{
	size_t need = TRAWL_CTF_EVENT_HEADER + (size_t)c->nfields * 8;
	if (p->len < TRAWL_CTF_PREAMBLE || trawl_ctf_packet_reserve(p, need) != 0)
		return -ENOMEM;
	uint8_t *q = p->buf + p->len;
	memcpy(q, &c->id, 4);
	memcpy(q + 4, &ts, 8);
	q += TRAWL_CTF_EVENT_HEADER;
	for (unsigned i = 0; i < c->nfields; i++) {
		size_t sz = trawl_ctf_type_size(c->fields[i].type);
		if (sz == 0)
			sz = 8;
		uint64_t v = vals[i];
		/* host order: copy the low sz bytes */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		memcpy(q, (uint8_t *)&v + (8 - sz), sz);
#else
		memcpy(q, &v, sz);
#endif
		q += sz;
	}
	p->len = (size_t)(q - p->buf);
	if (p->nevents == 0)
		p->ts_begin = ts;
	p->ts_end = ts;
	p->nevents++;
	return 0;
}

void trawl_ctf_packet_finish(struct trawl_ctf_packet *p, uint64_t seq, uint64_t discarded, uint32_t cpu,
			     uint32_t tid)
{
	if (p->len < TRAWL_CTF_PREAMBLE)
		return;
	uint32_t magic = TRAWL_CTF_MAGIC, sid = 0;
	uint64_t bits = (uint64_t)p->len * 8;
	uint8_t *q = p->buf;
	memcpy(q, &magic, 4);
	memcpy(q + 4, &sid, 4);
	memcpy(q + 8, &p->ts_begin, 8);
	memcpy(q + 16, &p->ts_end, 8);
	memcpy(q + 24, &bits, 8);
	memcpy(q + 32, &bits, 8);
	memcpy(q + 40, &seq, 8);
	memcpy(q + 48, &discarded, 8);
	memcpy(q + 56, &cpu, 4);
	memcpy(q + 60, &tid, 4);
}

void trawl_ctf_packet_release(struct trawl_ctf_packet *p)
{
	free(p->buf);
	memset(p, 0, sizeof *p);
}
