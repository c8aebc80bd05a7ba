/* ETE encoder: the bytes of each packet, the inverse of packet.c's parsers
 * (the header table there lists the formats). Addresses are compressed
 * against the same three-entry history the decoder keeps, so the encoder
 * mirrors every update the decoder makes (push on each address packet,
 * clear on A-Sync and Trace Info). */
#include <string.h>

#include "ete/encode-int.h"

void enc_flush_out(struct trawl_ete_encoder *e)
{
	if (e->nbuf && e->st == TRAWL_OK) {
		e->st = e->fn(e->fn_ctx, e->buf, e->nbuf, &e->fail);
		e->stats.bytes += e->nbuf;
	}
	e->nbuf = 0;
}

void enc_put(struct trawl_ete_encoder *e, const uint8_t *b, size_t n)
{
	if (e->nbuf + n > ENC_BUF)
		enc_flush_out(e);
	memcpy(e->buf + e->nbuf, b, n);
	e->nbuf += n;
	e->since_sync += n;
}

/* 7 value bits per byte, bit 7 = another byte follows */
size_t enc_cont_field(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	do {
		out[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			out[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

/* The one atom packet that starts the pending atoms (bit 0 oldest):
 * format 6 for runs of E (E x k then one more), 5 and 4 for their fixed
 * patterns, else 3, 2, 1 atoms as they come. Returns atoms consumed. */
static unsigned atom_packet(uint32_t a, unsigned n, uint8_t *h)
{
	unsigned r = 0;
	while (r < n && ((a >> r) & 1))
		r++;
	if (r >= 3 && r < n) {
		unsigned k = r > 23 ? 23 : r;
		*h = (uint8_t)(0xC0 | (k - 3) | (((a >> k) & 1) ? 0 : 0x20));
		return k + 1;
	}
	if (r >= 4) { /* a run of E to the end: the last one is the extra atom */
		unsigned k = (r > 24 ? 24 : r) - 1;
		*h = (uint8_t)(0xC0 | (k - 3));
		return k + 1;
	}
	if (n >= 5) {
		static const struct { uint8_t bits, h; } f5[] = {
			{ 0x00, 0xD5 }, { 0x0A, 0xD6 }, { 0x15, 0xD7 }, { 0x1E, 0xF5 } };
		for (size_t i = 0; i < 4; i++)
			if ((a & 0x1f) == f5[i].bits) {
				*h = f5[i].h;
				return 5;
			}
	}
	if (n >= 4) {
		static const struct { uint8_t bits, h; } f4[] = {
			{ 0xE, 0xDC }, { 0x0, 0xDD }, { 0xA, 0xDE }, { 0x5, 0xDF } };
		for (size_t i = 0; i < 4; i++)
			if ((a & 0xf) == f4[i].bits) {
				*h = f4[i].h;
				return 4;
			}
	}
	if (n >= 3) {
		*h = (uint8_t)(0xF8 | (a & 7));
		return 3;
	}
	if (n == 2) {
		*h = (uint8_t)(0xD8 | (a & 3));
		return 2;
	}
	*h = (uint8_t)(0xF6 | (a & 1));
	return 1;
}

/* Cycle count format 1 for the cycles up to the newest atom written
 * (with TRCIDR0.COMMOPT 1 and cycle counting it has no commit section). */
static void cycle_count(struct trawl_ete_encoder *e)
{
	uint8_t b[16] = { 0x0E };
	uint64_t c = e->cc_valid ? e->atom_cycles - e->cc_cycles : 0;
	uint64_t max = (1ull << e->cfg.cc_bits) - 1;
	if (c > max)
		c = max;
	size_t n = 1;
	if (!e->cfg.commopt1) /* commit option 0: a commit section (nothing) first */
		n += enc_cont_field(b + n, 0);
	n += enc_cont_field(b + n, c);
	enc_put(e, b, n);
	e->cc_cycles = e->atom_cycles;
	e->cc_valid = 1;
	e->stats.cycle_counts++;
}

void enc_atoms_flush(struct trawl_ete_encoder *e)
{
	if (!e->natoms)
		return;
	while (e->natoms) {
		uint8_t h;
		unsigned k = atom_packet(e->atoms, e->natoms, &h);
		enc_put(e, &h, 1);
		e->atoms >>= k;
		e->natoms -= k;
		e->stats.atom_packets++;
	}
	e->atoms = 0;
	if (e->o.cycle_counts)
		cycle_count(e);
}

void enc_atom_raw(struct trawl_ete_encoder *e, int taken)
{
	if (taken)
		e->atoms |= 1u << e->natoms;
	e->natoms++;
	if (e->natoms == ENC_ATOMS_MAX)
		enc_atoms_flush(e);
}

/* One P0 instruction's atom, with the speculation --speculate makes up
 * around it (encode-spec.c). */
void enc_atom(struct trawl_ete_encoder *e, int taken, uint64_t cycles)
{
	int mispredict;
	e->atom_cycles = cycles;
	enc_atom_raw(e, enc_spec_atom(e, taken, &mispredict));
	if (mispredict)
		enc_spec_mispredict(e);
	e->stats.atoms++;
	enc_spec_p0(e);
}

/* Timestamp: after a Trace Info every significant bit, else only the low
 * 7-bit groups that changed (the decoder keeps the rest). */
void enc_timestamp(struct trawl_ete_encoder *e, uint64_t t)
{
	uint8_t b[10] = { 0x02 };
	unsigned n = 1;
	while (n < 9) {
		unsigned bits = 7 * n;
		int fits = e->ts_valid ? (t >> bits) == (e->ts >> bits) : (t >> bits) == 0;
		if (fits)
			break;
		n++;
	}
	for (unsigned i = 0; i < n; i++) {
		if (i == 8) {
			b[1 + i] = (uint8_t)(t >> 56);
			break;
		}
		b[1 + i] = (uint8_t)((t >> (7 * i)) & 0x7f);
		if (i + 1 < n)
			b[1 + i] |= 0x80;
	}
	enc_put(e, b, 1 + n);
	e->ts = t;
	e->ts_valid = 1;
	e->stats.timestamps++;
}

/* A-Sync, then Trace Info (INFO: cycle counting on; CYCT: threshold 0),
 * which clear the address history and timestamp in every decoder */
void enc_sync(struct trawl_ete_encoder *e, uint64_t time)
{
	static const uint8_t async[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80 };
	enc_spec_commit(e); /* nothing speculative across a sync point */
	enc_atoms_flush(e);
	e->since_sync = 0;
	enc_put(e, async, sizeof async);
	if (e->o.cycle_counts) {
		static const uint8_t ti[] = { 0x01, 0x09, 0x01, 0x00 };
		enc_put(e, ti, sizeof ti);
	} else {
		static const uint8_t ti[] = { 0x01, 0x00 };
		enc_put(e, ti, sizeof ti);
	}
	memset(e->hist, 0, sizeof e->hist);
	memset(e->hist_is, 0, sizeof e->hist_is);
	e->ts_valid = 0;
	e->stats.syncs++;
	if (e->o.timestamps)
		enc_timestamp(e, time);
}

void enc_trace_on(struct trawl_ete_encoder *e, uint64_t time)
{
	static const uint8_t on = 0x04;
	enc_atoms_flush(e);
	enc_put(e, &on, 1);
	e->stats.trace_ons++;
	if (e->o.timestamps)
		enc_timestamp(e, time);
}

static void push(struct trawl_ete_encoder *e, uint64_t a, uint8_t is)
{
	e->hist[2] = e->hist[1];
	e->hist_is[2] = e->hist_is[1];
	e->hist[1] = e->hist[0];
	e->hist_is[1] = e->hist_is[0];
	e->hist[0] = a;
	e->hist_is[0] = is;
}

/* The address bytes of a long form: the low bytes are packed by IS (bits
 * 8:2 and 15:9 for IS0, 7:1 and 15:8 for IS1), the rest whole. */
static size_t long_bytes(uint8_t *b, uint64_t a, uint8_t is, int n)
{
	if (is) {
		b[0] = (uint8_t)((a >> 1) & 0x7f);
		b[1] = (uint8_t)(a >> 8);
	} else {
		b[0] = (uint8_t)((a >> 2) & 0x7f);
		b[1] = (uint8_t)((a >> 9) & 0x7f);
	}
	for (int i = 2; i < n; i++)
		b[i] = (uint8_t)(a >> (8 * i));
	return (size_t)n;
}

static uint8_t ctx_info(const struct trawl_ete_enc_insn *c)
{
	uint8_t sec = c->security;
	uint8_t ns = sec == 1 || sec == 2, nse = sec >= 2;
	uint8_t sf = c->isa == TRAWL_ISET_A64;
	return (uint8_t)((c->el & 3) | nse << 3 | sf << 4 | ns << 5);
}

/* Exact match when the history holds it; else short (1 or 2 bytes) when
 * only the low bits differ from the newest entry, long 32-bit when the
 * top half is the same, long 64-bit otherwise. With a context: the long
 * forms with the context's info byte (no VMID, no context ID). */
void enc_address(struct trawl_ete_encoder *e, uint64_t a, uint8_t is,
		 const struct trawl_ete_enc_insn *ctx)
{
	uint8_t b[16];
	size_t n = 0;
	int sh = is ? 1 : 2;
	uint64_t diff = a ^ e->hist[0];
	enc_atoms_flush(e);
	if (ctx) {
		int wide = (diff >> 32) != 0;
		b[n++] = wide ? (is ? 0x86 : 0x85) : (is ? 0x83 : 0x82);
		n += long_bytes(b + n, a, is, wide ? 8 : 4);
		b[n++] = ctx_info(ctx);
		e->ctx_el = ctx->el;
		e->ctx_sec = ctx->security;
		e->ctx_sf = ctx->isa == TRAWL_ISET_A64;
		e->ctx_valid = 1;
	} else {
		int i;
		for (i = 0; i < 3; i++)
			if (e->hist[i] == a && e->hist_is[i] == is)
				break;
		if (i < 3) {
			b[n++] = (uint8_t)(0x90 + i);
		} else if ((diff >> (7 + sh)) == 0) {
			b[n++] = is ? 0x96 : 0x95;
			b[n++] = (uint8_t)((a >> sh) & 0x7f);
		} else if ((diff >> (15 + sh)) == 0) {
			b[n++] = is ? 0x96 : 0x95;
			b[n++] = (uint8_t)(((a >> sh) & 0x7f) | 0x80);
			b[n++] = (uint8_t)(a >> (7 + sh));
		} else if ((diff >> 32) == 0) {
			b[n++] = is ? 0x9B : 0x9A;
			n += long_bytes(b + n, a, is, 4);
		} else {
			b[n++] = is ? 0x9E : 0x9D;
			n += long_bytes(b + n, a, is, 8);
		}
	}
	enc_put(e, b, n);
	push(e, a, is);
	e->stats.addresses++;
}

/* Exception packet (type in 5 bits, a second byte for more), then its
 * preferred return address */
void enc_exception(struct trawl_ete_encoder *e, uint32_t type, uint64_t ret, uint8_t is)
{
	uint8_t b[3] = { 0x06, (uint8_t)((type & 0x1f) << 1), 0 };
	size_t n = 2;
	enc_atoms_flush(e);
	if (type >= 32) {
		b[1] |= 0x80;
		b[2] = (uint8_t)((type >> 5) & 0x1f);
		n = 3;
	}
	enc_put(e, b, n);
	enc_address(e, ret, is, NULL);
	e->stats.exceptions++;
	enc_spec_p0(e); /* with its address: decoders hold it from there */
}
