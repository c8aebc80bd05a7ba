/* Stream protocol parser (the listener's side), version 2. Wire format
 * (docs/stream-protocol.md has the whole story; CRC = zlib's crc32):
 *
 *   hello, 48 bytes (little-endian):
 *   offset size field
 *   0      8    magic "TRWLSTRM"
 *   8      2    version (2; 1 is refused: it has no checksums)
 *   10     2    hello size (48)
 *   12     4    stream count at connect time
 *   16     8    clock frequency, Hz (1e9: stream times are ns)
 *   24     8    clock offset, s (signed)
 *   32     4    clock offset, ns (< 1e9)
 *   36     4    pid
 *   40     4    flags: bit 0 packets are big-endian (refused here)
 *   44     4    CRC of bytes 0..43
 *
 *   chunk header, 32 bytes, then `length` bytes:
 *   0      4    type: 1 class, 2 packet, 3 end, 4 time, 5 keepalive
 *   4      4    stream id (0 unless a packet)
 *   8      8    sequence number: 1 for the first chunk, then +1
 *   16     4    payload length (<= the listener's limit)
 *   20     4    CRC of the payload
 *   24     4    reserved, 0
 *   28     4    CRC of bytes 0..27 (checked first: a damaged length is
 *               caught before the parser waits for a payload that never comes)
 *
 *   class payload: 0 4 event id, 4 4 field count n (<= 16), 8 96 name
 *   (NUL-terminated), then n x 56: 48 name (NUL-terminated identifier),
 *   1 type (1-8), 7 zero. Length must be 104 + 56n.
 *   packet payload: one CTF packet whose preamble says content_size ==
 *   packet_size == 8 * length and whose events all use declared classes.
 *   time payload, 24 bytes: 0 4 round, 4 4 zero, 8 8 t1, 16 8 t2.
 *   end, keepalive: no payload; nothing may follow an end.
 */
#include "trawl/sw-event.h"
#include "trawl/sw-stream.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct trawl_sp_parser {
	uint8_t *buf;
	size_t len, cap;
	size_t max_chunk;
	uint64_t consumed;           /* connection bytes before buf[0] */
	uint64_t seq;
	size_t limit;                /* most bytes buffered() may reach */
	int have_hello, ended, broken, skip_crc;
	struct trawl_sp_hello hello;
	struct trawl_sw_class *classes; /* in arrival order */
	uint32_t *order;             /* indices into classes, sorted by id */
	size_t nclasses, ccap;
};

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

enum trawl_status trawl_sp_parser_create(struct trawl_sp_parser **out, size_t max_chunk, struct trawl_error *err)
{
	struct trawl_sp_parser *p = calloc(1, sizeof *p);
	*out = NULL;
	if (!p)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	p->max_chunk = max_chunk < 4096 ? 4096 : max_chunk;
	p->limit = SIZE_MAX;
	*out = p;
	return TRAWL_OK;
}

void trawl_sp_parser_destroy(struct trawl_sp_parser *p)
{
	if (!p)
		return;
	free(p->buf);
	free(p->classes);
	free(p->order);
	free(p);
}

static size_t class_bytes(size_t n)
{
	return n * (sizeof(struct trawl_sw_class) + sizeof(uint32_t));
}

size_t trawl_sp_parser_buffered(const struct trawl_sp_parser *p)
{
	return p->cap + class_bytes(p->ccap);
}

void trawl_sp_parser_set_limit(struct trawl_sp_parser *p, size_t max_bytes)
{
	p->limit = max_bytes;
}

void trawl_sp_parser_skip_checksums(struct trawl_sp_parser *p)
{
	p->skip_crc = 1;
}

uint32_t trawl_sp_crc32(const void *data, size_t len)
{
	uLong c = crc32(0L, Z_NULL, 0);
	const Bytef *b = data;
	/* zlib takes uInt lengths */
	while (len) {
		uInt k = len > (1u << 30) ? (1u << 30) : (uInt)len;
		c = crc32(c, b, k);
		b += k;
		len -= k;
	}
	return (uint32_t)c;
}

void trawl_sp_message(uint8_t out[TRAWL_SP_MSG_SIZE], const char *magic, uint32_t arg, uint64_t value)
{
	memset(out, 0, TRAWL_SP_MSG_SIZE);
	memcpy(out, magic, 4);
	for (int i = 0; i < 4; i++)
		out[4 + i] = (uint8_t)(arg >> (8 * i));
	for (int i = 0; i < 8; i++)
		out[8 + i] = (uint8_t)(value >> (8 * i));
	uint32_t c = trawl_sp_crc32(out, 16);
	for (int i = 0; i < 4; i++)
		out[16 + i] = (uint8_t)(c >> (8 * i));
}

int trawl_sp_parser_ended(const struct trawl_sp_parser *p)
{
	return p->ended;
}

size_t trawl_sp_parser_pending(const struct trawl_sp_parser *p)
{
	return p->len;
}

static enum trawl_status violation(struct trawl_sp_parser *p, struct trawl_error *err, uint64_t at, const char *what)
{
	p->broken = 1;
	trawl_error_set(err, TRAWL_ERR_FORMAT, "stream protocol: %s", what);
	trawl_error_at(err, "", 0, 0, p->consumed + at);
	err->has_offset = 1;
	return TRAWL_ERR_FORMAT;
}

static enum trawl_status over_limit(struct trawl_sp_parser *p, struct trawl_error *err)
{
	p->broken = 1;
	trawl_error_set(err, TRAWL_ERR_LIMIT, "would hold more than the %zu bytes of memory allowed", p->limit);
	trawl_error_at(err, "", 0, 0, p->consumed + p->len);
	err->has_offset = 1;
	return TRAWL_ERR_LIMIT;
}

static int crc_ok(const struct trawl_sp_parser *p, const uint8_t *data, size_t len, const uint8_t *want)
{
	return p->skip_crc || trawl_sp_crc32(data, len) == (uint32_t)le(want, 4);
}

static size_t order_pos(const struct trawl_sp_parser *p, uint32_t id)
{
	size_t lo = 0, hi = p->nclasses;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->classes[p->order[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct trawl_sw_class *find(const struct trawl_sp_parser *p, uint32_t id)
{
	size_t i = order_pos(p, id);
	return i < p->nclasses && p->classes[p->order[i]].id == id ? &p->classes[p->order[i]] : NULL;
}

static int valid_ident(const uint8_t *s, size_t cap)
{
	size_t n = strnlen((const char *)s, cap);
	if (n == 0 || n == cap || !(isalpha(s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum(s[i]) || s[i] == '_'))
			return 0;
	for (size_t i = n; i < cap; i++)
		if (s[i])
			return 0;
	return 1;
}

/* Check a class payload; on success fill c. Returns NULL or what is wrong. */
static const char *parse_class(const uint8_t *d, size_t len, struct trawl_sw_class *c)
{
	if (len < 104)
		return "class chunk too short";
	uint32_t n = (uint32_t)le(d + 4, 4);
	if (n > TRAWL_SW_MAX_FIELDS)
		return "class with more than 16 fields";
	if (len != 104 + (size_t)n * 56)
		return "class chunk length does not match its field count";
	memset(c, 0, sizeof *c);
	c->id = (uint32_t)le(d, 4);
	size_t nl = strnlen((const char *)d + 8, 96);
	if (nl == 0 || nl == 96)
		return "class name empty or not terminated";
	for (size_t i = 0; i < nl; i++)
		if (d[8 + i] < 0x20 || d[8 + i] >= 0x7f || d[8 + i] == '"' || d[8 + i] == '\\')
			return "class name with a forbidden character";
	memcpy(c->name, d + 8, nl);
	c->nfields = n;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *f = d + 104 + (size_t)i * 56;
		if (!valid_ident(f, 48))
			return "field name is not an identifier";
		if (!trawl_sw_type_size(f[48]))
			return "field with an unknown type";
		for (int k = 49; k < 56; k++)
			if (f[k])
				return "non-zero padding in a field";
		memcpy(c->fields[i].name, f, 48);
		c->fields[i].type = f[48];
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(c->fields[j].name, c->fields[i].name))
				return "duplicate field name";
	}
	return NULL;
}

static int same_class(const struct trawl_sw_class *a, const struct trawl_sw_class *b)
{
	if (a->nfields != b->nfields || strcmp(a->name, b->name))
		return 0;
	for (unsigned i = 0; i < a->nfields; i++)
		if (a->fields[i].type != b->fields[i].type || strcmp(a->fields[i].name, b->fields[i].name))
			return 0;
	return 1;
}

/* Walk a packet's events against the declared classes. */
static const char *check_packet(const struct trawl_sp_parser *p, const uint8_t *d, size_t len, uint32_t *nev)
{
	*nev = 0;
	if (len < 64)
		return "packet shorter than its preamble";
	if (le(d, 4) != 0xC1FC1FC1u)
		return "bad packet magic";
	if (le(d + 4, 4) != 0)
		return "packet of an unknown stream class";
	if (le(d + 24, 8) != (uint64_t)len * 8 || le(d + 32, 8) != (uint64_t)len * 8)
		return "packet sizes do not match the chunk length";
	if (le(d + 8, 8) > le(d + 16, 8))
		return "packet ends before it begins";
	size_t off = 64;
	uint64_t last = le(d + 8, 8);
	while (off < len) {
		if (len - off < 12)
			return "truncated event header in packet";
		const struct trawl_sw_class *c = find(p, (uint32_t)le(d + off, 4));
		if (!c)
			return "packet uses an undeclared event id";
		uint64_t ts = le(d + off + 4, 8);
		if (ts < last || ts > le(d + 16, 8))
			return "event time outside the packet's time range or going backwards";
		last = ts;
		size_t need = 12;
		for (unsigned i = 0; i < c->nfields; i++)
			need += trawl_sw_type_size(c->fields[i].type);
		if (len - off < need)
			return "truncated event in packet";
		off += need;
		(*nev)++;
	}
	return NULL;
}

static enum trawl_status add_class(struct trawl_sp_parser *p, const struct trawl_sw_class *c, struct trawl_error *err)
{
	const struct trawl_sw_class *old = find(p, c->id);
	if (old)
		return same_class(old, c) ? TRAWL_OK : violation(p, err, 0, "event id redefined differently");
	if (p->nclasses >= TRAWL_SP_MAX_CLASSES)
		return violation(p, err, 0, "too many event classes");
	if (p->nclasses == p->ccap) {
		size_t ncap = p->ccap ? p->ccap * 2 : 32;
		if (p->cap + class_bytes(ncap) > p->limit)
			return over_limit(p, err);
		void *n = realloc(p->classes, ncap * sizeof *p->classes);
		if (!n)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		p->classes = n;
		if (!(n = realloc(p->order, ncap * sizeof *p->order)))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		p->order = n;
		p->ccap = ncap;
	}
	size_t pos = order_pos(p, c->id);
	memmove(p->order + pos + 1, p->order + pos, (p->nclasses - pos) * sizeof *p->order);
	p->order[pos] = (uint32_t)p->nclasses;
	p->classes[p->nclasses++] = *c;
	return TRAWL_OK;
}

/* The 48-byte hello at h (whole). */
static enum trawl_status parse_hello(struct trawl_sp_parser *p, const uint8_t *h, struct trawl_error *err)
{
	if (memcmp(h, "TRWLSTRM", 8) != 0)
		return violation(p, err, 0, "bad magic (not a trawl recorder)");
	p->hello.version = (uint16_t)le(h + 8, 2);
	if (p->hello.version == 1)
		return violation(p, err, 8,
				 "protocol version 1 is not supported: this listener speaks version 2, which checksums "
				 "every chunk (rebuild the program with the current libtrawlrec; it keeps its trace "
				 "locally meanwhile)");
	if (p->hello.version != TRAWL_SP_VERSION)
		return violation(p, err, 8, "unsupported protocol version (this listener speaks version 2)");
	if (!crc_ok(p, h, 44, h + 44))
		return violation(p, err, 44, "hello checksum mismatch");
	if (le(h + 10, 2) != TRAWL_SP_HELLO_SIZE)
		return violation(p, err, 10, "bad hello size");
	p->hello.nstreams = (uint32_t)le(h + 12, 4);
	p->hello.clock_freq = le(h + 16, 8);
	p->hello.clock_offset_s = (int64_t)le(h + 24, 8);
	p->hello.clock_offset_ns = (uint32_t)le(h + 32, 4);
	p->hello.pid = (uint32_t)le(h + 36, 4);
	p->hello.flags = (uint32_t)le(h + 40, 4);
	if (p->hello.clock_freq != 1000000000u)
		return violation(p, err, 16, "clock frequency must be 1000000000");
	if (p->hello.clock_offset_ns >= 1000000000u)
		return violation(p, err, 32, "clock offset ns out of range");
	if (p->hello.flags & 1)
		return violation(p, err, 40, "big-endian packets are not supported");
	if (p->hello.flags >> 1)
		return violation(p, err, 40, "unknown flags");
	p->have_hello = 1;
	return TRAWL_OK;
}

/* Check a chunk header (32 bytes at h, chunk at connection offset `at`). */
static enum trawl_status check_header(struct trawl_sp_parser *p, const uint8_t *h, uint64_t at,
				      struct trawl_error *err)
{
	if (!crc_ok(p, h, 28, h + 28))
		return violation(p, err, at, "chunk header checksum mismatch");
	uint32_t type = (uint32_t)le(h, 4);
	if (type < TRAWL_SP_CLASS || type > TRAWL_SP_KEEPALIVE)
		return violation(p, err, at, "unknown chunk type");
	if (le(h + 8, 8) != p->seq + 1)
		return violation(p, err, at + 8, "sequence number out of order");
	if (le(h + 24, 4))
		return violation(p, err, at + 24, "non-zero reserved field");
	if (type != TRAWL_SP_PACKET && le(h + 4, 4))
		return violation(p, err, at + 4, "stream id on a chunk that is not a packet");
	if (le(h + 16, 4) > p->max_chunk)
		return violation(p, err, at + 16, "chunk larger than the listener allows");
	return TRAWL_OK;
}

/* Check a whole chunk's payload and fill the item. */
static enum trawl_status parse_payload(struct trawl_sp_parser *p, const uint8_t *h, uint64_t at,
				       struct trawl_sp_item *it, struct trawl_error *err)
{
	uint32_t type = (uint32_t)le(h, 4);
	size_t plen = (size_t)le(h + 16, 4);
	const uint8_t *d = h + TRAWL_SP_CHUNK_HEADER;
	const char *bad = NULL;
	enum trawl_status st;
	struct trawl_sw_class c;
	if (!crc_ok(p, d, plen, h + 20)) {
		char msg[96];
		snprintf(msg, sizeof msg, "payload checksum mismatch in chunk %llu", (unsigned long long)le(h + 8, 8));
		return violation(p, err, at, msg);
	}
	it->seq = le(h + 8, 8);
	it->stream = (uint32_t)le(h + 4, 4);
	it->kind = (enum trawl_sp_kind)type;
	at += TRAWL_SP_CHUNK_HEADER;
	switch (type) {
	case TRAWL_SP_CLASS:
		if ((bad = parse_class(d, plen, &c)))
			return violation(p, err, at, bad);
		if ((st = add_class(p, &c, err)))
			return st;
		it->cls = find(p, c.id);
		break;
	case TRAWL_SP_PACKET:
		if ((bad = check_packet(p, d, plen, &it->nevents)))
			return violation(p, err, at, bad);
		it->data = d;
		it->len = plen;
		break;
	case TRAWL_SP_TIME:
		if (plen != TRAWL_SP_TIME_SIZE || le(d + 4, 4))
			return violation(p, err, at, "malformed time chunk");
		it->round = (uint32_t)le(d, 4);
		it->t1 = le(d + 8, 8);
		it->t2 = le(d + 16, 8);
		break;
	default: /* end, keepalive */
		if (plen)
			return violation(p, err, at - TRAWL_SP_CHUNK_HEADER + 16, "end or keepalive chunk with a payload");
		if (type == TRAWL_SP_END)
			p->ended = 1;
	}
	p->seq = it->seq;
	return TRAWL_OK;
}

/* Handle as many whole items as buf holds; returns bytes used. */
static enum trawl_status drain(struct trawl_sp_parser *p, const uint8_t *b, size_t n, size_t *used, trawl_sp_fn fn,
			       void *ctx, int *stop, struct trawl_error *err)
{
	size_t off = 0;
	enum trawl_status st = TRAWL_OK;
	*stop = 0;
	*used = 0;
	while (!*stop) {
		struct trawl_sp_item it;
		memset(&it, 0, sizeof it);
		it.offset = p->consumed + off;
		if (!p->have_hello) {
			if (n - off < TRAWL_SP_HELLO_SIZE) {
				/* reject a wrong magic as early as possible */
				size_t k = n - off < 8 ? n - off : 8;
				if (memcmp(b + off, "TRWLSTRM", k) != 0)
					return violation(p, err, 0, "bad magic (not a trawl recorder)");
				break;
			}
			if ((st = parse_hello(p, b + off, err)))
				return st;
			it.kind = TRAWL_SP_HELLO;
			it.hello = &p->hello;
			off += TRAWL_SP_HELLO_SIZE;
			*stop = fn ? fn(ctx, &it) : 0;
			continue;
		}
		if (p->ended) {
			if (n - off)
				return violation(p, err, off, "data after the end chunk");
			break;
		}
		if (n - off < TRAWL_SP_CHUNK_HEADER)
			break;
		const uint8_t *h = b + off;
		if ((st = check_header(p, h, off, err)))
			return st;
		size_t plen = (size_t)le(h + 16, 4);
		if (n - off - TRAWL_SP_CHUNK_HEADER < plen)
			break;
		if ((st = parse_payload(p, h, off, &it, err)))
			return st;
		off += TRAWL_SP_CHUNK_HEADER + plen;
		*stop = fn ? fn(ctx, &it) : 0;
	}
	*used = off;
	return st;
}

/* How many bytes the buffer may hold: one largest chunk (plus the hello),
 * less if the memory limit says so. */
static size_t buffer_room(const struct trawl_sp_parser *p)
{
	size_t room = p->max_chunk + TRAWL_SP_CHUNK_HEADER + TRAWL_SP_HELLO_SIZE;
	size_t cls = class_bytes(p->ccap);
	if (p->limit < cls)
		return 0;
	return p->limit - cls < room ? p->limit - cls : room;
}

static enum trawl_status grow(struct trawl_sp_parser *p, size_t need, struct trawl_error *err)
{
	size_t room = buffer_room(p);
	if (need <= p->cap)
		return TRAWL_OK;
	if (need > room)
		return over_limit(p, err);
	/* small first: under a tight limit, room the buffer does not take is
	 * room the class table can still use */
	size_t ncap = p->cap ? p->cap : 4096;
	while (ncap < need)
		ncap *= 2;
	if (ncap > room)
		ncap = room;
	uint8_t *nb = realloc(p->buf, ncap);
	if (!nb)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	p->buf = nb;
	p->cap = ncap;
	return TRAWL_OK;
}

/* Parses straight from the caller's bytes while nothing is buffered, so the
 * usual case copies nothing; only a chunk split across feeds is buffered, at
 * most buffer_room at a time, so small chunks pass a tight memory limit.
 * Bytes left when the callback stops are kept (at most one chunk) for the
 * next feed, and an emptied big buffer is freed, off the listener's total. */
enum trawl_status trawl_sp_parser_feed(struct trawl_sp_parser *p, const uint8_t *data, size_t len, trawl_sp_fn fn,
				       void *ctx, struct trawl_error *err)
{
	if (p->broken)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "stream parser already failed");
	int stop = 0;
	enum trawl_status st;
	size_t used = 0;
	/* fast path: nothing buffered, parse straight from the caller's bytes */
	if (p->len == 0) {
		if ((st = drain(p, data, len, &used, fn, ctx, &stop, err)))
			return st;
		p->consumed += used;
		data += used;
		len -= used;
		if (stop || len == 0)
			goto keep;
	}
	while (len) {
		/* take what fits: many small chunks pass even a tight limit */
		size_t room = buffer_room(p);
		if (p->len >= room)
			return room < p->max_chunk + TRAWL_SP_CHUNK_HEADER + TRAWL_SP_HELLO_SIZE
				       ? over_limit(p, err)
				       : violation(p, err, 0, "chunk does not fit the buffer");
		size_t take = len < room - p->len ? len : room - p->len;
		if ((st = grow(p, p->len + take, err)))
			return st;
		memcpy(p->buf + p->len, data, take);
		p->len += take;
		data += take;
		len -= take;
		if ((st = drain(p, p->buf, p->len, &used, fn, ctx, &stop, err)))
			return st;
		memmove(p->buf, p->buf + used, p->len - used);
		p->len -= used;
		p->consumed += used;
		if (stop)
			break;
	}
keep:
	if (len) {
		/* stopped early: keep the rest for the next feed */
		if (p->len + len > p->max_chunk + TRAWL_SP_CHUNK_HEADER + TRAWL_SP_HELLO_SIZE)
			return violation(p, err, 0, "too much unread data");
		if ((st = grow(p, p->len + len, err)))
			return st;
		memcpy(p->buf + p->len, data, len);
		p->len += len;
	}
	if (p->len == 0 && p->cap > 65536) {
		/* a big chunk has gone through: give its memory back, so the
		 * connection no longer counts it against the listener's total */
		free(p->buf);
		p->buf = NULL;
		p->cap = 0;
	}
	return TRAWL_OK;
}

static void put_le64(uint8_t *d, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		d[i] = (uint8_t)(v >> (8 * i));
}

static int shift(uint8_t *d, int64_t delta)
{
	uint64_t v = le(d, 8), r = v + (uint64_t)delta;
	if (delta < 0 ? r > v : r < v)
		return -1;
	put_le64(d, r);
	return 0;
}

enum trawl_status trawl_sp_packet_shift(const struct trawl_sp_parser *p, uint8_t *d, size_t len, int64_t delta,
					struct trawl_error *err)
{
	if (len < 64 || shift(d + 8, delta) || shift(d + 16, delta))
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "packet time out of range after the clock correction");
	/* the layout was checked by check_packet when the packet arrived */
	for (size_t off = 64; off + 12 <= len;) {
		const struct trawl_sw_class *c = find(p, (uint32_t)le(d + off, 4));
		if (!c)
			return trawl_error_set(err, TRAWL_ERR_INTERNAL, "packet uses an undeclared event id");
		if (shift(d + off + 4, delta))
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "event time out of range after the clock correction");
		off += 12;
		for (unsigned i = 0; i < c->nfields; i++)
			off += trawl_sw_type_size(c->fields[i].type);
	}
	return TRAWL_OK;
}
