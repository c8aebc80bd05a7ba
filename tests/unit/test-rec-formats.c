/* Formats around the recorder: .tdef definitions and their JSON, the
 * Barrelfish dump reader, the stream protocol parser and the CTF reader's
 * handling of damage. Expected values are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/rec-ctf.h"
#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"
#include "trawl/sw-defs.h"
#include "trawl/bf-dump.h"
#include "trawl/sw-stream.h"
#include "trawl/sw-filter.h"
#include "trawl/sw-activity.h"

#include <zlib.h>

static const char good_tdef[] =
	"# demo\n"
	"subsystem net \"network\" {\n"
	"    event RX \"received\" (u32 len \"bytes\"),\n"
	"    event TX (u32 len, u16 port, s64 delay),\n"
	"    event IRQ,\n"
	"};\n"
	"/* second */ subsystem lock { event TAKE; event DROP (u8 why) }\n";

static void test_defs_parse(void **state)
{
	(void)state;
	struct trawl_defs *d;
	struct trawl_error err;
	assert_int_equal(trawl_defs_parse(&d, good_tdef, strlen(good_tdef), "x.tdef", &err), TRAWL_OK);
	assert_int_equal(d->nsubsys, 2);
	assert_string_equal(d->subsys[0].name, "net");
	assert_string_equal(d->subsys[0].desc, "network");
	assert_int_equal(d->subsys[0].nevents, 3);
	assert_int_equal(d->subsys[0].events[1].id, 1);
	assert_int_equal(d->subsys[0].events[1].nfields, 3);
	assert_int_equal(d->subsys[0].events[1].fields[2].type, TRAWL_SW_S64);
	assert_string_equal(d->subsys[0].events[0].fields[0].desc, "bytes");
	assert_true(trawl_defs_event_fast(&d->subsys[0].events[0]));
	assert_false(trawl_defs_event_fast(&d->subsys[0].events[1]));
	assert_true(trawl_defs_event_fast(&d->subsys[0].events[2]));
	assert_int_equal(d->subsys[1].id, 1);
	assert_string_equal(d->subsys[1].events[1].name, "DROP");
	struct trawl_sw_class c;
	trawl_defs_class(&d->subsys[1], &d->subsys[1].events[1], &c);
	assert_int_equal(c.id, 0x10001);
	assert_string_equal(c.name, "lock:DROP");

	/* JSON round trip gives the same definitions */
	char *json = trawl_defs_to_json(d);
	struct trawl_defs *j;
	assert_int_equal(trawl_defs_parse_json(&j, json, strlen(json), "x.json", &err), TRAWL_OK);
	assert_int_equal(j->nsubsys, 2);
	for (size_t s = 0; s < 2; s++) {
		assert_string_equal(j->subsys[s].name, d->subsys[s].name);
		assert_int_equal(j->subsys[s].nevents, d->subsys[s].nevents);
		for (size_t e = 0; e < d->subsys[s].nevents; e++) {
			assert_string_equal(j->subsys[s].events[e].name, d->subsys[s].events[e].name);
			assert_int_equal(j->subsys[s].events[e].nfields, d->subsys[s].events[e].nfields);
			for (unsigned f = 0; f < d->subsys[s].events[e].nfields; f++)
				assert_int_equal(j->subsys[s].events[e].fields[f].type, d->subsys[s].events[e].fields[f].type);
		}
	}
	char *h = trawl_defs_to_header(d, "x", "x.tdef");
	assert_non_null(strstr(h, "#define TRAWL_EVENT_NET_TX 1\n"));
	assert_non_null(strstr(h, "static inline void trawl_net_tx(uint32_t len, uint16_t port, int64_t delay)"));
	assert_non_null(strstr(h, "trawl_rec_emit(TRAWL_SUBSYS_NET, TRAWL_EVENT_NET_RX, len);"));
	char *ctf = trawl_defs_to_ctf(d);
	assert_non_null(strstr(ctf, "name = \"net:TX\";\n\tid = 1;"));
	free(h);
	free(ctf);
	free(json);
	trawl_defs_destroy(j);
	trawl_defs_destroy(d);
}

struct bad_case {
	const char *text;
	uint64_t line;
	uint32_t col;
	const char *msg;
};

static void test_defs_errors(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
		{ "subsystem a { event X, event X };", 1, 30, "duplicate event 'X'" },
		{ "subsystem a {}\nsubsystem a {}", 2, 11, "duplicate subsystem 'a'" },
		{ "subsystem a {\n  event X (u33 v)\n}", 2, 12, "unknown type 'u33'" },
		{ "subsystem a { event X (u8 v, u8 v) }", 1, 33, "duplicate field 'v'" },
		{ "subsystem a { event X (u8 int) }", 1, 27, "reserved word" },
		{ "subsystem a { event X \"oops }", 1, 23, "unterminated string" },
		{ "subsystem a { event X", 1, 22, "not closed" },
		{ "event X", 1, 1, "expected 'subsystem'" },
		{ "subsystem a { event X (u8 a, u8 b, u8 c, u8 d, u8 e, u8 f, u8 g, u8 h, u8 i, u8 j, u8 k, u8 l, u8 m, u8 n, u8 o, u8 p, u8 q) }",
		  1, 120, "too many fields" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct trawl_defs *d = NULL;
		struct trawl_error err;
		trawl_error_clear(&err);
		assert_int_equal(trawl_defs_parse(&d, cases[i].text, strlen(cases[i].text), "bad.tdef", &err), TRAWL_ERR_FORMAT);
		assert_null(d);
		if (err.line != cases[i].line || err.column != cases[i].col || !strstr(err.message, cases[i].msg))
			fail_msg("case %zu: got %llu:%u '%s'", i, (unsigned long long)err.line, err.column, err.message);
		assert_string_equal(err.file, "bad.tdef");
	}
	/* too many events in a subsystem */
	size_t cap = 70000 * 16 + 64, n = 0;
	char *big = malloc(cap);
	n += (size_t)snprintf(big + n, cap - n, "subsystem s {\n");
	for (int i = 0; i <= 65536; i++)
		n += (size_t)snprintf(big + n, cap - n, "event e%d,\n", i);
	n += (size_t)snprintf(big + n, cap - n, "}\n");
	struct trawl_defs *d = NULL;
	struct trawl_error err;
	assert_int_equal(trawl_defs_parse(&d, big, n, "big.tdef", &err), TRAWL_ERR_FORMAT);
	assert_int_equal(err.line, 65538);
	assert_non_null(strstr(err.message, "too many events"));
	free(big);
}

static void test_defs_json_errors(void **state)
{
	(void)state;
	static const char *bad[] = {
		"{\"subsystems\": [{\"name\": \"a\", \"id\": 40000}]}",
		"{\"subsystems\": [{\"name\": \"a\", \"id\": 1}, {\"name\": \"a\", \"id\": 2}]}",
		"{\"subsystems\": [{\"name\": \"a\", \"id\": 1, \"events\": [{\"name\": \"e\", \"id\": 0, \"fields\": [{\"name\": \"f\", \"type\": \"u7\"}]}]}]}",
		"{\"subsystems\": [}",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
		"{\"subsystems\": []} x",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct trawl_defs *d = NULL;
		struct trawl_error err;
		assert_int_equal(trawl_defs_parse_json(&d, bad[i], strlen(bad[i]), "b.json", &err), TRAWL_ERR_FORMAT);
		assert_null(d);
		assert_int_equal(err.line, 1);
		assert_true(err.column > 0);
	}
}

struct bf_got {
	struct trawl_bf_event ev[8];
	int n;
};

static int bf_cb(void *ctx, const struct trawl_bf_event *ev)
{
	struct bf_got *g = ctx;
	if (g->n < 8)
		g->ev[g->n++] = *ev;
	return 0;
}

static void test_bf_parse(void **state)
{
	(void)state;
	static const char dump[] =
		"# trace start 1000\n"
		"# core 1 offset -40\n"
		"# app 0 monitor\n"
		"\n"
		"0 1000 0001000200000003\n"
		"1 1100 0x00ea0000deadbeef\n"
		"  0   1200   ffff00ff00000001  \n";
	struct bf_got g = { .n = 0 };
	struct trawl_bf_stats st;
	struct trawl_error err;
	assert_int_equal(trawl_bf_parse(dump, strlen(dump), "d.txt", bf_cb, &g, &st, &err), TRAWL_OK);
	assert_int_equal(g.n, 3);
	assert_int_equal(st.header_lines, 3);
	assert_int_equal(st.offsets, 1);
	assert_int_equal(g.ev[0].core, 0);
	assert_int_equal(g.ev[0].time, 1000);
	assert_int_equal(g.ev[0].word, 0x0001000200000003ull);
	assert_int_equal(g.ev[1].time, 1060);
	assert_int_equal(g.ev[1].word, 0x00ea0000deadbeefull);
	assert_int_equal(g.ev[1].line, 6);
	assert_int_equal(g.ev[2].word, 0xffff00ff00000001ull);
	static const struct bad_case bad[] = {
		{ "0 12 zz\n", 1, 6, "raw event word" },
		{ "0 1\n", 1, 4, "raw event word" },
		{ "x 1 2\n", 1, 1, "core number" },
		{ "# ok\n0 1 2 3\n", 2, 7, "unexpected text" },
		{ "5000 1 2\n", 1, 5, "core number too large" },
		{ "0 1 11112222333344445\n", 1, 5, "up to 16 digits" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		trawl_error_clear(&err);
		assert_int_equal(trawl_bf_parse(bad[i].text, strlen(bad[i].text), "d.txt", NULL, NULL, NULL, &err),
				 TRAWL_ERR_FORMAT);
		if (err.line != bad[i].line || err.column != bad[i].col || !strstr(err.message, bad[i].msg))
			fail_msg("case %zu: got %llu:%u '%s'", i, (unsigned long long)err.line, err.column, err.message);
	}
}

/* ---- stream protocol: build a connection's bytes by hand ---- */

struct wire {
	uint8_t b[8192];
	size_t n;
	uint64_t seq;
};

static void put(struct wire *w, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static void put_at(uint8_t *b, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_at(const uint8_t *b, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

/* version 2 hello: the CRC (zlib's crc32) of bytes 0..43 at 44 */
static void hello(struct wire *w)
{
	size_t at = w->n;
	memcpy(w->b + w->n, "TRWLSTRM", 8);
	w->n += 8;
	put(w, 2, 2);
	put(w, 48, 2);
	put(w, 2, 4);
	put(w, 1000000000, 8);
	put(w, 1700000000, 8);
	put(w, 5, 4);
	put(w, 4242, 4);
	put(w, 0, 4);
	put(w, crc32(0, w->b + at, 44), 4);
}

/* a 32-byte chunk header: payload CRC at 20, header CRC at 28 */
static void header(struct wire *w, uint32_t type, uint32_t sid, size_t len, uint32_t pcrc)
{
	size_t at = w->n;
	put(w, type, 4);
	put(w, sid, 4);
	put(w, ++w->seq, 8);
	put(w, len, 4);
	put(w, pcrc, 4);
	put(w, 0, 4);
	put(w, crc32(0, w->b + at, 28), 4);
}

static void chunk(struct wire *w, uint32_t type, uint32_t sid, const void *p, size_t len)
{
	header(w, type, sid, len, (uint32_t)crc32(0, p, (uInt)len));
	if (len)
		memcpy(w->b + w->n, p, len);
	w->n += len;
}

/* Recompute every checksum after a deliberate edit, so that the edit
 * reaches the check it is aimed at. */
static void reseal(struct wire *w)
{
	put_at(w->b + 44, crc32(0, w->b, 44), 4);
	for (size_t off = 48; off + 32 <= w->n;) {
		size_t plen = (size_t)get_at(w->b + off + 16, 4);
		put_at(w->b + off + 20, crc32(0, w->b + off + 32, (uInt)plen), 4);
		put_at(w->b + off + 28, crc32(0, w->b + off, 28), 4);
		off += 32 + plen;
	}
}

static void class_chunk(struct wire *w)
{
	uint8_t c[104 + 56] = { 0 };
	c[0] = 0x02; c[2] = 0x01;         /* id 0x00010002 */
	c[4] = 1;                         /* one field */
	memcpy(c + 8, "net:TX", 6);
	memcpy(c + 104, "len", 3);
	c[104 + 48] = TRAWL_SW_U16;
	chunk(w, 1, 0, c, sizeof c);
}

/* nev events at t0, t0 + 1...: a stream's packets follow in time */
static size_t make_packet(uint8_t *out, int nev, uint64_t t0)
{
	struct trawl_ctf_packet p = { 0 };
	struct trawl_ctf_class c = { .id = 0x10002, .nfields = 1 };
	strcpy(c.name, "net:TX");
	strcpy(c.fields[0].name, "len");
	c.fields[0].type = TRAWL_REC_U16;
	trawl_ctf_packet_begin(&p);
	for (int i = 0; i < nev; i++) {
		uint64_t v = (uint64_t)(100 + i);
		trawl_ctf_packet_event(&p, &c, t0 + (uint64_t)i, &v);
	}
	trawl_ctf_packet_finish(&p, 0, 0, 1, 77);
	memcpy(out, p.buf, p.len);
	size_t n = p.len;
	trawl_ctf_packet_release(&p);
	return n;
}

struct sp_got {
	int kinds[16];
	int n;
	uint32_t nevents;
	uint32_t pid;
};

static int sp_cb(void *ctx, const struct trawl_sp_item *it)
{
	struct sp_got *g = ctx;
	if (g->n < 16)
		g->kinds[g->n++] = (int)it->kind;
	if (it->kind == TRAWL_SP_PACKET)
		g->nevents += it->nevents;
	if (it->kind == TRAWL_SP_HELLO)
		g->pid = it->hello->pid;
	return 0;
}

static void test_stream_parser(void **state)
{
	(void)state;
	struct wire w = { .n = 0 };
	uint8_t pkt[512];
	hello(&w);
	class_chunk(&w);
	size_t plen = make_packet(pkt, 3, 1000); /* 64 + 3 * 14 = 106 bytes */
	assert_int_equal(plen, 106);
	chunk(&w, 2, 1, pkt, plen);
	chunk(&w, 3, 0, NULL, 0);
	/* any split of the bytes gives the same items */
	for (size_t step = 1; step <= w.n; step = step < 8 ? step + 1 : step * 3) {
		struct trawl_sp_parser *p;
		struct trawl_error err;
		struct sp_got g = { .n = 0 };
		assert_int_equal(trawl_sp_parser_create(&p, 4096, &err), TRAWL_OK);
		for (size_t off = 0; off < w.n; off += step) {
			size_t k = w.n - off < step ? w.n - off : step;
			if (trawl_sp_parser_feed(p, w.b + off, k, sp_cb, &g, &err) != TRAWL_OK)
				fail_msg("step %zu off %zu: %s at %llu", step, off, err.message, (unsigned long long)err.offset);
		}
		assert_int_equal(g.n, 4);
		assert_int_equal(g.kinds[0], TRAWL_SP_HELLO);
		assert_int_equal(g.kinds[1], TRAWL_SP_CLASS);
		assert_int_equal(g.kinds[2], TRAWL_SP_PACKET);
		assert_int_equal(g.kinds[3], TRAWL_SP_END);
		assert_int_equal(g.nevents, 3);
		assert_int_equal(g.pid, 4242);
		assert_true(trawl_sp_parser_ended(p));
		trawl_sp_parser_destroy(p);
	}
	/* damage: each at a known byte offset; hello 0-47, class chunk at 48
	 * (payload at 80), packet chunk at 240 (payload at 272) */
	struct {
		size_t at;
		uint8_t val;
		int reseal;
		uint64_t err_off;
		const char *msg;
	} bad[] = {
		{ 0, 'X', 1, 0, "bad magic" },
		{ 8, 1, 1, 8, "version 1 is not supported" },
		{ 48 + 8, 9, 1, 48 + 8, "sequence number" },          /* class chunk seq */
		{ 80 + 8, 0, 1, 80, "class name" },                  /* first name byte 0 */
		{ 80 + 104 + 48, 9, 1, 80, "unknown type" },
		{ 272 + 64, 5, 1, 272, "undeclared event id" },
		{ 272 + 24, 1, 1, 272, "sizes do not match" },
		{ 48 + 4, 1, 1, 48 + 4, "stream id on a chunk" },
		{ 20, 7, 0, 44, "hello checksum" },
		{ 48 + 16, 0x40, 0, 48, "chunk header checksum" },    /* a length grown */
		{ 272 + 70, 0x55, 0, 240, "payload checksum mismatch in chunk 2" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct wire x = w;
		x.b[bad[i].at] = bad[i].val;
		if (bad[i].reseal)
			reseal(&x);
		struct trawl_sp_parser *p;
		struct trawl_error err;
		assert_int_equal(trawl_sp_parser_create(&p, 4096, &err), TRAWL_OK);
		enum trawl_status st = trawl_sp_parser_feed(p, x.b, x.n, NULL, NULL, &err);
		assert_int_equal(st, TRAWL_ERR_FORMAT);
		if (err.offset != bad[i].err_off || !strstr(err.message, bad[i].msg))
			fail_msg("case %zu: offset %llu '%s'", i, (unsigned long long)err.offset, err.message);
		trawl_sp_parser_destroy(p);
	}
	/* every single-bit flip anywhere in the connection is refused */
	for (size_t bit = 0; bit < w.n * 8; bit++) {
		struct wire x = w;
		x.b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		struct trawl_sp_parser *p;
		struct trawl_error err;
		struct sp_got g = { .n = 0 };
		assert_int_equal(trawl_sp_parser_create(&p, 4096, &err), TRAWL_OK);
		if (trawl_sp_parser_feed(p, x.b, x.n, sp_cb, &g, &err) == TRAWL_OK)
			fail_msg("flipped bit %zu (byte %zu) accepted", bit % 8, bit / 8);
		/* nothing at or after the damaged item was handed out */
		assert_true(g.n <= (bit / 8 < 48 ? 0 : bit / 8 < 240 ? 1 : bit / 8 < 378 ? 2 : 3));
		trawl_sp_parser_destroy(p);
	}
	/* a chunk above the limit is refused before it is buffered */
	struct wire big = { .n = 0 };
	hello(&big);
	header(&big, 2, 0, 1u << 20, 0);
	struct trawl_sp_parser *p;
	struct trawl_error err;
	assert_int_equal(trawl_sp_parser_create(&p, 65536, &err), TRAWL_OK);
	assert_int_equal(trawl_sp_parser_feed(p, big.b, big.n, NULL, NULL, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "larger than"));
	assert_true(trawl_sp_parser_buffered(p) <= 65536 + 80);
	trawl_sp_parser_destroy(p);
	/* a memory limit: the same stream fed a byte at a time needs a buffer
	 * for the partial packet; 100 bytes are not enough for its 138 */
	assert_int_equal(trawl_sp_parser_create(&p, 65536, &err), TRAWL_OK);
	trawl_sp_parser_set_limit(p, 100 + 32 * (sizeof(struct trawl_sw_class) + 4));
	enum trawl_status st = TRAWL_OK;
	for (size_t off = 0; off < w.n && st == TRAWL_OK; off++)
		st = trawl_sp_parser_feed(p, w.b + off, 1, NULL, NULL, &err);
	assert_int_equal(st, TRAWL_ERR_LIMIT);
	assert_true(trawl_sp_parser_buffered(p) <= 100 + 32 * (sizeof(struct trawl_sw_class) + 4));
	trawl_sp_parser_destroy(p);
	/* the parser's first buffer (4096 bytes) and class table (32) are
	 * enough, however the bytes arrive: all at once, or 200 at a time */
	for (size_t step = 200; step <= w.n; step += w.n - 200) {
		assert_int_equal(trawl_sp_parser_create(&p, 65536, &err), TRAWL_OK);
		trawl_sp_parser_set_limit(p, 4096 + 32 * (sizeof(struct trawl_sw_class) + 4));
		for (size_t off = 0; off < w.n; off += step) {
			size_t k = w.n - off < step ? w.n - off : step;
			if (trawl_sp_parser_feed(p, w.b + off, k, NULL, NULL, &err) != TRAWL_OK)
				fail_msg("step %zu off %zu: %s", step, off, err.message);
		}
		assert_true(trawl_sp_parser_ended(p));
		trawl_sp_parser_destroy(p);
	}
}

/* Moving a packet onto the listener's clock adds the delta to its begin,
 * end and every event time, and nothing else. */
static int shift_cb(void *ctx, const struct trawl_sp_item *it)
{
	if (it->kind == TRAWL_SP_PACKET) {
		uint8_t *copy = ctx;
		memcpy(copy, it->data, it->len);
	}
	return 0;
}

static void test_stream_packet_shift(void **state)
{
	(void)state;
	struct wire w = { .n = 0 };
	uint8_t pkt[512], copy[512], want[512];
	hello(&w);
	class_chunk(&w);
	size_t plen = make_packet(pkt, 3, 1000);
	chunk(&w, 2, 1, pkt, plen);
	struct trawl_sp_parser *p;
	struct trawl_error err;
	assert_int_equal(trawl_sp_parser_create(&p, 4096, &err), TRAWL_OK);
	assert_int_equal(trawl_sp_parser_feed(p, w.b, w.n, shift_cb, copy, &err), TRAWL_OK);
	memcpy(want, pkt, plen);
	/* by hand: begin at 8, end at 16, events (14 bytes) at 64, 78, 92 with
	 * their times 4 bytes in: 1000, 1001, 1002 */
	put_at(want + 8, get_at(pkt + 8, 8) - 500, 8);
	put_at(want + 16, get_at(pkt + 16, 8) - 500, 8);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(get_at(pkt + 64 + 14 * i + 4, 8), 1000 + i);
		put_at(want + 64 + 14 * i + 4, 500 + (uint64_t)i, 8);
	}
	assert_int_equal(trawl_sp_packet_shift(p, copy, plen, -500, &err), TRAWL_OK);
	assert_memory_equal(copy, want, plen);
	/* below 0 is refused */
	assert_int_equal(trawl_sp_packet_shift(p, copy, plen, -100000, &err), TRAWL_ERR_FORMAT);
	trawl_sp_parser_destroy(p);
}

/* The CTF reader stops a damaged stream at the last whole event and says
 * where. */
static void test_ctf_damage(void **state)
{
	(void)state;
	struct trawl_ctf_meta m;
	trawl_ctf_meta_init(&m);
	struct trawl_ctf_class c = { .id = 0x10002, .nfields = 1 };
	strcpy(c.name, "net:TX");
	strcpy(c.fields[0].name, "len");
	c.fields[0].type = TRAWL_REC_U16;
	trawl_ctf_meta_add(&m, &c);
	char *meta = trawl_ctf_meta_text(&m);
	uint8_t two[1024];
	size_t n1 = make_packet(two, 3, 1000);
	size_t n2 = make_packet(two + n1, 2, 2000);
	struct {
		size_t len;
		int events;
		uint64_t off;
	} cases[] = {
		{ n1 + n2, 5, 0 },        /* whole */
		/* packets of 14-byte events after a 64-byte preamble, no padding:
		 * the whole events of a packet the file cuts are read, and the
		 * damage is where the reading stopped */
		{ n1 + n2 - 1, 4, n1 + 64 + 14 }, /* second packet's last event cut */
		{ n1 + 30, 3, n1 },               /* cut inside the next preamble */
		{ n1 - 14, 2, n1 - 14 },          /* first packet cut after its second event */
		{ n1 - 20, 1, 64 + 14 },          /* ... inside its second event */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const uint8_t *streams[1] = { two };
		size_t lens[1] = { cases[i].len };
		struct trawl_swtrace *t;
		struct trawl_error err;
		assert_int_equal(trawl_swtrace_open_mem(&t, meta, strlen(meta), streams, lens, 1, &err), TRAWL_OK);
		struct trawl_sw_event ev;
		int got = 0;
		while (trawl_swtrace_next(t, &ev) == TRAWL_OK) {
			assert_int_equal(ev.vals[0], (uint64_t)(100 + (got < 3 ? got : got - 3)));
			assert_int_equal(ev.tid, 77);
			got++;
		}
		assert_int_equal(got, cases[i].events);
		const struct trawl_error *d = trawl_swtrace_damage(t);
		if (i == 0)
			assert_null(d);
		else {
			assert_non_null(d);
			assert_int_equal(d->offset, cases[i].off);
		}
		trawl_swtrace_close(t);
	}
	/* a bad event id inside a packet: offset of that event */
	two[64] = 0x77;
	const uint8_t *streams[1] = { two };
	size_t lens[1] = { n1 };
	struct trawl_swtrace *t;
	struct trawl_error err;
	assert_int_equal(trawl_swtrace_open_mem(&t, meta, strlen(meta), streams, lens, 1, &err), TRAWL_OK);
	struct trawl_sw_event ev;
	assert_int_equal(trawl_swtrace_next(t, &ev), TRAWL_END);
	assert_int_equal(trawl_swtrace_damage(t)->offset, 64);
	trawl_swtrace_close(t);
	/* metadata errors carry line and column */
	static const char badmeta[] = "/* CTF 1.8 */\ntrace {\n\tmajor = 1;\n\tbyte_order le;\n};\n";
	assert_int_equal(trawl_swtrace_open_mem(&t, badmeta, strlen(badmeta), NULL, NULL, 0, &err), TRAWL_ERR_FORMAT);
	assert_int_equal(err.line, 4);
	assert_int_equal(err.column, 13);
	free(meta);
	trawl_ctf_meta_release(&m);
}

/* Classes added in any order are found by id and written sorted. */
/* The batch calls against the one-at-a-time ones they stand for, over
 * three streams of several packets whose times tie and interleave (runs of
 * one stream, single events, equal times across streams), four classes of
 * mixed field types, and the third stream cut inside its last packet: the
 * reader's events and damage, the filter's verdicts and the engine's
 * records must be the same, for batches of 1, 2, 5 and 64. The count of
 * events and their order by time are checked against what was written. */
struct rec_log {
	struct trawl_act_record r[4096];
	size_t n;
};

static void rec_sink(void *ctx, const struct trawl_act_record *r)
{
	struct rec_log *l = ctx;
	assert_true(l->n < 4096);
	l->r[l->n++] = *r;
}

static void test_ctf_batch(void **state)
{
	(void)state;
	struct trawl_ctf_class cls[4] = {
		{ .id = 0, .name = "net:RX", .nfields = 1 },
		{ .id = 1, .name = "net:TX", .nfields = 3 },
		{ .id = 0x10000, .name = "lock:ACQUIRE", .nfields = 0 },
		{ .id = 0x10001, .name = "lock:RELEASE", .nfields = 2 },
	};
	strcpy(cls[0].fields[0].name, "len");
	cls[0].fields[0].type = TRAWL_REC_U32;
	strcpy(cls[1].fields[0].name, "port");
	cls[1].fields[0].type = TRAWL_REC_U16;
	strcpy(cls[1].fields[1].name, "len");
	cls[1].fields[1].type = TRAWL_REC_U32;
	strcpy(cls[1].fields[2].name, "d");
	cls[1].fields[2].type = TRAWL_REC_S8;
	strcpy(cls[3].fields[0].name, "v");
	cls[3].fields[0].type = TRAWL_REC_U64;
	strcpy(cls[3].fields[1].name, "w");
	cls[3].fields[1].type = TRAWL_REC_S32;
	struct trawl_ctf_meta m;
	trawl_ctf_meta_init(&m);
	for (int i = 0; i < 4; i++)
		trawl_ctf_meta_add(&m, &cls[i]);
	char *meta = trawl_ctf_meta_text(&m);
	static uint8_t buf[3][65536];
	size_t lens[3] = { 0 }, written = 0, cut_events = 0;
	uint64_t rng = 88172645463325252ull;
	for (int sidx = 0; sidx < 3; sidx++) {
		uint64_t time = 1000;
		for (int pk = 0; pk < 40; pk++) {
			struct trawl_ctf_packet p = { 0 };
			trawl_ctf_packet_begin(&p);
			int nev = 1 + (int)(pk * 7 + sidx) % 7;
			for (int e = 0; e < nev; e++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				/* mostly short steps (runs of one stream), sometimes a jump past the others */
				time += rng % 4 == 0 ? rng % 97 : rng % 3;
				const struct trawl_ctf_class *c = &cls[(rng >> 8) % 4];
				uint64_t v[3] = { (rng >> 16) % 9, (rng >> 24) % 300, (uint64_t)(int64_t)-(int64_t)((rng >> 32) % 5) };
				assert_int_equal(trawl_ctf_packet_event(&p, c, time, v), 0);
			}
			trawl_ctf_packet_finish(&p, (uint64_t)pk, 0, (uint32_t)(pk % 2 + sidx), (uint32_t)(100 + sidx));
			assert_true(lens[sidx] + p.len <= sizeof buf[0]);
			memcpy(buf[sidx] + lens[sidx], p.buf, p.len);
			lens[sidx] += p.len;
			written += (size_t)nev;
			if (sidx == 2 && pk == 39)
				cut_events = 1; /* its last event: the others are whole */
			trawl_ctf_packet_release(&p);
		}
	}
	lens[2] -= 5; /* the last packet of the third stream is cut inside its last event */
	const uint8_t *streams[3] = { buf[0], buf[1], buf[2] };
	static const char tdef[] =
		"activity pk span { begin net:RX; end net:TX; key thread; };\n"
		"activity lk span { begin lock:ACQUIRE; end lock:RELEASE; key cpu; };\n"
		"activity ph state { set lock:ACQUIRE, lock:RELEASE; idle lock:RELEASE; };\n"
		/* a field at another index in each class; a state's value field */
		"activity ms message { send net:RX; recv net:TX; key len; };\n"
		"activity wv state { set lock:RELEASE; value w; };\n";
	struct trawl_defs *defs;
	struct trawl_error err;
	assert_int_equal(trawl_defs_parse(&defs, tdef, strlen(tdef), "b.tdef", &err), TRAWL_OK);
	/* || and && chains (run per class in the batches: a field a class lacks
	 * leaves a term out or drops the event) and one that is not a chain */
	const struct trawl_swfilter_spec specs[] = {
		{ .where = "len > 3 || cpu == 1", .time = "20ns..400ns" },
		{ .where = "len <= 200 && d < 0 && tid != 101" },
		{ .where = "port % 2 == 0 || time > 300" },
	};
	static struct rec_log want, got;
	static const size_t sizes[] = { 1, 2, 5, 64 };
	for (size_t si = 0; si < 12; si++) {
		const struct trawl_swfilter_spec spec = specs[si / 4];
		struct trawl_swtrace *a, *b;
		assert_int_equal(trawl_swtrace_open_mem(&a, meta, strlen(meta), streams, lens, 3, &err), TRAWL_OK);
		assert_int_equal(trawl_swtrace_open_mem(&b, meta, strlen(meta), streams, lens, 3, &err), TRAWL_OK);
		struct trawl_swtrace_info ia, ib;
		trawl_swtrace_info(a, &ia);
		trawl_swtrace_info(b, &ib);
		struct trawl_swfilter *fa, *fb;
		assert_int_equal(trawl_swfilter_create(&fa, &spec, ia.classes, ia.nclasses, &err), TRAWL_OK);
		assert_int_equal(trawl_swfilter_create(&fb, &spec, ib.classes, ib.nclasses, &err), TRAWL_OK);
		struct trawl_act *ea, *eb, *ec;
		static struct rec_log packed;
		want.n = got.n = packed.n = 0;
		assert_int_equal(trawl_act_create(&ea, defs, ia.classes, ia.nclasses, 0, rec_sink, &want, &err), TRAWL_OK);
		assert_int_equal(trawl_act_create(&eb, defs, ib.classes, ib.nclasses, 0, rec_sink, &got, &err), TRAWL_OK);
		/* the packed events (events-pipe.c) make the same records */
		assert_int_equal(trawl_act_create(&ec, defs, ib.classes, ib.nclasses, 0, rec_sink, &packed, &err), TRAWL_OK);
		assert_true(trawl_act_packable(ec));
		struct trawl_act_event pk[64];
		struct trawl_sw_event one, many[64];
		uint8_t keep[64], bt[64];
		size_t total = 0, kept = 0, nb;
		uint64_t last = 0;
		while ((nb = trawl_swtrace_next_batch(b, many, sizes[si % 4])) > 0) {
			assert_true(nb <= sizes[si % 4]);
			size_t kb = trawl_swfilter_keep_batch(fb, many, nb, keep, bt), kept_before = kept;
			trawl_act_feed_batch(eb, many, nb, bt);
			size_t np = trawl_act_pack(ec, many, nb, bt, pk);
			assert_true(np <= nb);
			trawl_act_feed_packed(ec, pk, np);
			for (size_t i = 0; i < nb; i++, total++) {
				assert_int_equal(trawl_swtrace_next(a, &one), TRAWL_OK);
				int k_bt, k = trawl_swfilter_keep_ex(fa, &one, &k_bt);
				trawl_act_feed(ea, &one, k_bt);
				assert_int_equal(keep[i], k);
				assert_int_equal(bt[i], k_bt);
				kept += (size_t)k;
				const struct trawl_sw_event *e = &many[i];
				assert_int_equal(e->time, one.time);
				assert_true(e->time >= last);
				last = e->time;
				assert_int_equal(e->cpu, one.cpu);
				assert_int_equal(e->tid, one.tid);
				assert_int_equal(e->stream, one.stream);
				assert_int_equal(e->offset, one.offset);
				assert_int_equal(e->cls->id, one.cls->id);
				for (unsigned f = 0; f < e->cls->nfields; f++)
					assert_int_equal(e->vals[f], one.vals[f]);
			}
			assert_int_equal(kb, kept - kept_before); /* the count the batch call returns */
		}
		assert_int_equal(trawl_swtrace_next(a, &one), TRAWL_END);
		assert_int_equal(total, written - cut_events);
		assert_true(kept > 0 && kept < total); /* the filter decides both ways */
		trawl_act_finish(ea, last);
		trawl_act_finish(eb, last);
		trawl_act_finish(ec, last);
		assert_true(want.n > 10);
		assert_int_equal(got.n, want.n);
		assert_int_equal(packed.n, want.n);
		for (size_t k = 0; k < 2 * want.n; k++) {
			const struct trawl_act_record *x = k < want.n ? &got.r[k] : &packed.r[k - want.n],
						       *y = &want.r[k % want.n];
			assert_int_equal(x->act, y->act);
			assert_int_equal(x->depth, y->depth);
			assert_int_equal(x->key, y->key);
			assert_int_equal(x->begin, y->begin);
			assert_int_equal(x->end, y->end);
			assert_int_equal(x->cpu, y->cpu);
			assert_int_equal(x->cpu_end, y->cpu_end);
			assert_int_equal(x->tid, y->tid);
			assert_int_equal(x->tid_end, y->tid_end);
			assert_int_equal(x->flags, y->flags);
		}
		for (size_t k = 0; k < 5; k++) {
			assert_memory_equal(trawl_act_counts(eb, k), trawl_act_counts(ea, k), sizeof(struct trawl_act_counts));
			assert_memory_equal(trawl_act_counts(ec, k), trawl_act_counts(ea, k), sizeof(struct trawl_act_counts));
		}
		const struct trawl_error *da = trawl_swtrace_damage(a), *db = trawl_swtrace_damage(b);
		assert_non_null(da);
		assert_non_null(db);
		assert_int_equal(db->offset, da->offset);
		assert_string_equal(db->message, da->message);
		trawl_act_destroy(ea);
		trawl_act_destroy(eb);
		trawl_act_destroy(ec);
		trawl_swfilter_destroy(fa);
		trawl_swfilter_destroy(fb);
		trawl_swtrace_close(a);
		trawl_swtrace_close(b);
	}
	trawl_defs_destroy(defs);
	/* net:TX's roles reading two fields (len, port): no packed event holds both */
	static const char two[] = "activity x message { send net:TX; recv net:RX; key len; };\n"
				  "activity y state { set net:TX; value port; };\n";
	assert_int_equal(trawl_defs_parse(&defs, two, strlen(two), "c.tdef", &err), TRAWL_OK);
	struct trawl_swtrace *t;
	assert_int_equal(trawl_swtrace_open_mem(&t, meta, strlen(meta), streams, lens, 3, &err), TRAWL_OK);
	struct trawl_swtrace_info it;
	trawl_swtrace_info(t, &it);
	struct trawl_act *ex;
	assert_int_equal(trawl_act_create(&ex, defs, it.classes, it.nclasses, 0, rec_sink, &want, &err), TRAWL_OK);
	assert_false(trawl_act_packable(ex));
	trawl_act_destroy(ex);
	trawl_swtrace_close(t);
	trawl_defs_destroy(defs);
	free(meta);
	trawl_ctf_meta_release(&m);
}

static void test_ctf_meta_order(void **state)
{
	(void)state;
	struct trawl_ctf_meta m;
	trawl_ctf_meta_init(&m);
	static const uint32_t ids[] = { 0x50000, 0x30001, 0x90000, 0x30000, 0x50000 };
	static const int added[] = { 1, 1, 1, 1, 0 };
	for (int i = 0; i < 5; i++) {
		struct trawl_ctf_class c = { .id = ids[i], .nfields = 0 };
		snprintf(c.name, sizeof c.name, "s:e%d", i);
		assert_int_equal(trawl_ctf_meta_add(&m, &c), added[i]);
	}
	assert_int_equal(m.nclasses, 4);
	assert_string_equal(trawl_ctf_meta_find(&m, 0x30000)->name, "s:e3");
	assert_string_equal(trawl_ctf_meta_find(&m, 0x50000)->name, "s:e0");
	assert_null(trawl_ctf_meta_find(&m, 0x30002));
	char *t = trawl_ctf_meta_text(&m);
	const char *a = strstr(t, "id = 196608;"), *b = strstr(t, "id = 196609;"), *c = strstr(t, "id = 327680;"),
		   *d = strstr(t, "id = 589824;");
	assert_true(a && b && c && d && a < b && b < c && c < d);
	free(t);
	trawl_ctf_meta_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defs_parse),
		cmocka_unit_test(test_defs_errors),
		cmocka_unit_test(test_defs_json_errors),
		cmocka_unit_test(test_bf_parse),
		cmocka_unit_test(test_stream_parser),
		cmocka_unit_test(test_stream_packet_shift),
		cmocka_unit_test(test_ctf_damage),
		cmocka_unit_test(test_ctf_meta_order),
		cmocka_unit_test(test_ctf_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
