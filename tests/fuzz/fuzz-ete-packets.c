/* libFuzzer harness: the ETE/ETMv4 packet decoder, the flow decoder and
 * the transaction tracker behind it.
 * The first input byte picks a configuration and a chunk size, so odd
 * configurations (ETMv4, Q support, speculation, context sizes) and every
 * chunk boundary are exercised; the rest is the trace. The packet decoder's
 * fast paths are also checked against its general parser (abort on any
 * difference in packets or counters), and the flow decoder's block cache
 * and atom fast path against its uncached walk (abort on any difference in
 * the elements). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

static uint64_t sink;

static void on_trans(void *ctx, const struct trawl_ete_trans *t)
{
	(void)ctx;
	sink += t->start_pc + t->end_pc + t->insns + t->depth;
}

static void on_elem(void *ctx, const struct trawl_ete_elem *e)
{
	sink += e->start + e->count;
	trawl_ete_trans_elem(ctx, e);
}

static void on_pkts(void *ctx, const struct trawl_ete_packet *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sink += p[i].addr + p[i].type;
	trawl_ete_flow_packets(ctx, p, n);
}

/* Digest of every field of every packet, to compare the decoder's fast
 * paths with its general parser (trawl_ete_pkt_decoder_set_generic). */
static void on_digest(void *ctx, const struct trawl_ete_packet *p, size_t n)
{
	uint64_t *h = ctx;
	for (size_t i = 0; i < n; i++) {
		uint64_t f[] = { p[i].offset, p[i].addr, p[i].value, p[i].atoms, p[i].count,
				 p[i].cc, p[i].len, p[i].commit, p[i].type, p[i].header,
				 p[i].natoms, p[i].is, p[i].addr_bits, p[i].flags,
				 p[i].exc_addr_interp, p[i].ite_el };
		for (size_t j = 0; j < sizeof f / sizeof f[0]; j++)
			*h = (*h ^ f[j]) * 0x100000001b3ull;
	}
}

/* Digest of the decoder's address history: a counting-only decoder has no
 * packets to compare, but must decode addresses all the same. */
static uint64_t hist_digest(const struct trawl_ete_pkt_decoder *d, uint64_t h)
{
	for (unsigned i = 0; i < 3; i++) {
		uint64_t a;
		uint8_t is;
		if (trawl_ete_pkt_decoder_history(d, i, &a, &is) != TRAWL_OK)
			abort();
		h = (h ^ a ^ ((uint64_t)is << 63)) * 0x100000001b3ull;
	}
	return h;
}

/* One pass over data; returns the packet digest (records) or a constant
 * (counting), the stats, and a digest of the address history after every
 * chunk. */
static uint64_t pass(const struct trawl_ete_config *cfg, const uint8_t *data, size_t size,
		     size_t chunk, int generic, int records, struct trawl_ete_pkt_stats *st,
		     uint64_t *hist)
{
	struct trawl_ete_pkt_decoder *d;
	uint64_t h = 0xcbf29ce484222325ull;
	*hist = h;
	if (trawl_ete_pkt_decoder_create(&d, cfg, records ? on_digest : NULL, &h, NULL) != TRAWL_OK)
		abort();
	trawl_ete_pkt_decoder_set_generic(d, generic);
	for (size_t i = 0; i < size; i += chunk) {
		trawl_ete_pkt_decoder_feed(d, data + i, size - i < chunk ? size - i : chunk);
		*hist = hist_digest(d, *hist);
	}
	trawl_ete_pkt_decoder_finish(d);
	*st = *trawl_ete_pkt_decoder_stats(d);
	trawl_ete_pkt_decoder_destroy(d);
	return h;
}

static void differential(const struct trawl_ete_config *cfg, const uint8_t *data, size_t size,
			 size_t chunk)
{
	struct trawl_ete_pkt_stats s[4];
	uint64_t hist[4];
	uint64_t ref = pass(cfg, data, size, chunk, 1, 1, &s[0], &hist[0]);
	if (pass(cfg, data, size, chunk, 0, 1, &s[1], &hist[1]) != ref)
		abort(); /* fast path records differ from the general parser's */
	pass(cfg, data, size, chunk, 0, 0, &s[2], &hist[2]);
	pass(cfg, data, size, chunk, 1, 0, &s[3], &hist[3]);
	for (int i = 1; i < 4; i++) {
		if (memcmp(&s[0], &s[i], sizeof s[0]) != 0)
			abort(); /* counters differ between paths */
		if (hist[i] != hist[0])
			abort(); /* decoded addresses differ between paths */
	}
}

/* Digest of every field of every element, cached flow against uncached. */
static void on_elem_digest(void *ctx, const struct trawl_ete_elem *e)
{
	uint64_t *h = ctx;
	uint64_t f[] = { e->offset, e->type, e->isa, e->taken, e->last_cls, e->last_flags,
			 e->last_size, e->el, e->start, e->end, e->value, e->count, e->cc,
			 e->ctx.el, e->ctx.sf, e->ctx.ns, e->ctx.nse, e->ctx.has_vmid,
			 e->ctx.has_cid, e->ctx.vmid, e->ctx.cid };
	for (size_t j = 0; j < sizeof f / sizeof f[0]; j++)
		*h = (*h ^ f[j]) * 0x100000001b3ull;
}

static uint64_t flow_pass(const struct trawl_ete_config *cfg, struct trawl_ete_image *img,
			  const uint8_t *data, size_t size, size_t chunk, int generic)
{
	struct trawl_ete_flow *flow;
	struct trawl_ete_pkt_decoder *d;
	uint64_t h = 0xcbf29ce484222325ull;
	if (trawl_ete_flow_create(&flow, cfg, img, on_elem_digest, &h, NULL) != TRAWL_OK)
		abort();
	trawl_ete_flow_set_generic(flow, generic);
	if (trawl_ete_pkt_decoder_create(&d, cfg, trawl_ete_flow_packets, flow, NULL) != TRAWL_OK)
		abort();
	for (size_t i = 0; i < size; i += chunk)
		trawl_ete_pkt_decoder_feed(d, data + i, size - i < chunk ? size - i : chunk);
	trawl_ete_pkt_decoder_finish(d);
	trawl_ete_flow_finish(flow);
	trawl_ete_pkt_decoder_destroy(d);
	trawl_ete_flow_destroy(flow);
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t prog[] = { 0x1f, 0x20, 0x03, 0xd5, 0x41, 0x00, 0x00, 0x54,
					0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6,
					0xfe, 0xe7, 0x70, 0x47, 0x1e, 0xff, 0x2f, 0xe1,
					/* tstart x0, tcommit, tcancel #0x8005 */
					0x60, 0x30, 0x23, 0xd5, 0x7f, 0x30, 0x03, 0xd5,
					0xa0, 0x00, 0x70, 0xd4 };
	if (size < 1)
		return 0;
	uint8_t sel = data[0];
	data++;
	size--;
	struct trawl_ete_config cfg;
	trawl_ete_config_default(&cfg);
	if (sel & 1) { /* ETMv4 */
		cfg.devarch = 0;
		cfg.idr1 = 0x4200f440;
	}
	if (sel & 2)
		cfg.idr0 |= 3u << 15;            /* Q packets */
	if (sel & 4)
		cfg.idr8 = 16;                    /* speculation */
	if (sel & 8)
		cfg.idr2 = 0xd0001088;            /* 32-bit VMID and context ID */
	if (sel & 16)
		cfg.configr |= 1u << 12;          /* return stack */
	if (trawl_ete_config_derive(&cfg, NULL) != TRAWL_OK)
		return 0;
	size_t chunk = (size_t)(sel >> 5) * 3 + 1;
	if (size)
		differential(&cfg, data, size, size);
	differential(&cfg, data, size, chunk);
	/* and with commit fields in cycle count format 1 (COMMOPT = 0), which
	 * the counting loop handles apart */
	struct trawl_ete_config cfg0 = cfg;
	cfg0.idr0 &= ~(1u << 29);
	if (trawl_ete_config_derive(&cfg0, NULL) == TRAWL_OK)
		differential(&cfg0, data, size, chunk);
	struct trawl_ete_image *img = NULL;
	struct trawl_ete_flow *flow = NULL;
	struct trawl_ete_pkt_decoder *d = NULL;
	struct trawl_ete_trans_tracker *tr = NULL;
	if (trawl_ete_image_create(&img, NULL) != TRAWL_OK)
		return 0;
	trawl_ete_image_add(img, 0, prog, sizeof prog, "p", NULL);
	trawl_ete_image_add(img, 0x1000, prog, sizeof prog, "p", NULL);
	if (flow_pass(&cfg, img, data, size, chunk, 1) != flow_pass(&cfg, img, data, size, chunk, 0))
		abort(); /* the block cache or atom fast path changed the elements */
	if (trawl_ete_trans_create(&tr, img, on_trans, NULL, NULL) != TRAWL_OK)
		goto out;
	if (trawl_ete_flow_create(&flow, &cfg, img, on_elem, tr, NULL) != TRAWL_OK)
		goto out;
	if (trawl_ete_pkt_decoder_create(&d, &cfg, on_pkts, flow, NULL) != TRAWL_OK)
		goto out;
	for (size_t i = 0; i < size; i += chunk)
		trawl_ete_pkt_decoder_feed(d, data + i, size - i < chunk ? size - i : chunk);
	trawl_ete_pkt_decoder_finish(d);
	trawl_ete_flow_finish(flow);
	trawl_ete_trans_finish(tr);
out:
	trawl_ete_pkt_decoder_destroy(d);
	trawl_ete_flow_destroy(flow);
	trawl_ete_trans_destroy(tr);
	trawl_ete_image_destroy(img);
	return 0;
}
