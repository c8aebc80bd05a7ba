/* bench-ete-mix OUT BYTES SEED MAXRUN REF_SNAPSHOT SNAPSHOT...
 *
 * Builds the second input of bench-ete.sh: a raw ETE stream of at least
 * BYTES bytes with no short period for a branch predictor to learn, unlike
 * one sample repeated. It starts with the packets of REF_SNAPSHOT's first
 * buffer up to its first TRACE_INFO (A-Sync + trace info: where both
 * decoders synchronise), then repeats: pick a packet uniformly at random
 * among all samples' packets, copy a run of 1..MAXRUN consecutive packets
 * from there (the run stops at the end of its buffer). Runs keep the local
 * packet grammar of real trace (an address after atoms, a context after an
 * exception); the random starts remove the long-range repetition. The
 * generator is seeded (SEED) so every machine builds the same bytes.
 *
 * Samples: every source_data buffer of every SNAPSHOT whose packets split
 * the same way under REF_SNAPSHOT's configuration as under their own (the
 * stream is decoded with REF_SNAPSHOT's registers) and hold no malformed or
 * cut packet; others are named on stderr and left out. Only packet syntax
 * is kept: address compression, context and timestamps refer to whatever
 * history precedes, so the stream is for packet decoding, not for
 * decoding to instruction ranges.
 *
 * Prints "packets PACKETS bytes BYTES samples BUFFERS" (what was written)
 * and writes OUT.idx, the byte offset of every packet, one per line (the
 * bench compares it with the offsets OpenCSD's trc_pkt_lister lists); but
 * first re-parses OUT and fails if trawl does not find the same packets.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

struct pkt {
	uint32_t off;
	uint16_t len;
	uint8_t type;
};

struct pkts {
	struct pkt *p;
	size_t n, cap;
	int bad;
};

struct sample {
	const uint8_t *data;
	struct pkt *p;
	size_t n;
};

static void on_pkts(void *ctx, const struct trawl_ete_packet *p, size_t n)
{
	struct pkts *v = ctx;
	for (size_t i = 0; i < n; i++) {
		if (p[i].type == TRAWL_ETE_PKT_NOTSYNC)
			continue;
		if (p[i].type == TRAWL_ETE_PKT_BAD || p[i].type == TRAWL_ETE_PKT_INCOMPLETE)
			v->bad = 1;
		if (v->n == v->cap) {
			size_t cap = v->cap ? 2 * v->cap : 1024;
			struct pkt *q = realloc(v->p, cap * sizeof *q);
			if (!q) {
				v->bad = 1;
				return;
			}
			v->p = q;
			v->cap = cap;
		}
		v->p[v->n++] = (struct pkt){ (uint32_t)p[i].offset, p[i].len, p[i].type };
	}
}

/* Packets of data[0..len) under cfg; 0, or -1 when the decoder fails. */
static int split(struct pkts *v, const struct trawl_ete_config *cfg, const uint8_t *data, size_t len)
{
	struct trawl_error err;
	struct trawl_ete_pkt_decoder *d;
	memset(v, 0, sizeof *v);
	if (trawl_ete_pkt_decoder_create(&d, cfg, on_pkts, v, &err) != TRAWL_OK)
		return -1;
	trawl_ete_pkt_decoder_feed(d, data, len);
	trawl_ete_pkt_decoder_finish(d);
	trawl_ete_pkt_decoder_destroy(d);
	return 0;
}

static uint64_t rng_state;

/* splitmix64: small, seedable, the same on every platform */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: bench-ete-mix OUT BYTES SEED MAXRUN REF_SNAPSHOT SNAPSHOT...\n");
		return 2;
	}
	uint64_t want = strtoull(argv[2], NULL, 0);
	if (want > (1u << 30)) { /* offsets are kept in 32 bits */
		fprintf(stderr, "bench-ete-mix: BYTES must be at most 1 GiB\n");
		return 2;
	}
	rng_state = strtoull(argv[3], NULL, 0);
	size_t maxrun = strtoul(argv[4], NULL, 0);
	if (maxrun == 0 || maxrun > 1024) /* runs must fit the slack below */
		maxrun = maxrun ? 1024 : 1;
	struct trawl_error err;
	struct trawl_ete_snapshot **snaps = calloc((size_t)argc, sizeof *snaps);
	struct sample *smp = calloc(64 * (size_t)argc, sizeof *smp);
	size_t nsmp = 0, total = 0;
	const struct trawl_ete_config *ref = NULL;
	for (int a = 5; a < argc; a++) {
		if (trawl_ete_snapshot_open(&snaps[a], argv[a], &err) != TRAWL_OK || !snaps[a]->nsources) {
			fprintf(stderr, "bench-ete-mix: %s: not loaded, left out\n", argv[a]);
			snaps[a] = NULL;
			continue;
		}
		const struct trawl_ete_snapshot *s = snaps[a];
		if (!ref)
			ref = &s->sources[0].cfg;
		for (size_t b = 0; b < s->nbuffers && b < 64; b++) {
			const struct trawl_ete_buffer *buf = &s->buffers[b];
			if (strcmp(buf->format, "source_data") || !buf->len)
				continue;
			struct pkts own, under_ref;
			if (split(&own, &s->sources[0].cfg, buf->data, buf->len) ||
			    split(&under_ref, ref, buf->data, buf->len))
				return 1;
			int same = own.n == under_ref.n && own.n > 0;
			for (size_t i = 0; same && i < own.n; i++)
				same = own.p[i].off == under_ref.p[i].off &&
				       own.p[i].len == under_ref.p[i].len &&
				       own.p[i].type == under_ref.p[i].type;
			free(own.p);
			if (own.bad || under_ref.bad || !same) {
				fprintf(stderr, "bench-ete-mix: %s: left out: %s\n", buf->path,
					own.bad ? "malformed or cut packets"
					: under_ref.bad ? "malformed under the reference configuration"
					: "packets split differently under the reference configuration");
				free(under_ref.p);
				continue;
			}
			smp[nsmp++] = (struct sample){ buf->data, under_ref.p, under_ref.n };
			total += under_ref.n;
		}
	}
	if (!nsmp || !ref) {
		fprintf(stderr, "bench-ete-mix: no usable sample\n");
		return 1;
	}
	uint8_t *out = malloc(want + 65536);
	uint8_t *types = malloc(want + 65536);
	uint32_t *offs = malloc((want + 65536) * sizeof *offs);
	if (!out || !types || !offs)
		return 1;
	size_t len = 0, npk = 0;
	/* preamble: the reference buffer's packets through its first TRACE_INFO */
	for (size_t i = 0; i < smp[0].n; i++) {
		const struct pkt *p = &smp[0].p[i];
		memcpy(out + len, smp[0].data + p->off, p->len);
		offs[npk] = (uint32_t)len;
		len += p->len;
		types[npk++] = p->type;
		if (p->type == TRAWL_ETE_PKT_TRACE_INFO)
			break;
	}
	while (len < want) {
		uint64_t k = rng_next() % total;
		size_t s = 0;
		while (k >= smp[s].n)
			k -= smp[s++].n;
		size_t run = 1 + (size_t)(rng_next() % maxrun);
		for (size_t i = (size_t)k; i < smp[s].n && i < k + run; i++) {
			const struct pkt *p = &smp[s].p[i];
			memcpy(out + len, smp[s].data + p->off, p->len);
			offs[npk] = (uint32_t)len;
			len += p->len;
			types[npk++] = p->type;
		}
	}
	FILE *f = fopen(argv[1], "wb");
	if (!f || fwrite(out, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "bench-ete-mix: cannot write %s\n", argv[1]);
		return 1;
	}
	/* the written stream must parse into exactly the packets copied */
	struct pkts check;
	if (split(&check, ref, out, len))
		return 1;
	int ok = !check.bad && check.n == npk;
	for (size_t i = 0; ok && i < npk; i++)
		ok = check.p[i].type == types[i] && check.p[i].off == offs[i];
	if (!ok) {
		fprintf(stderr, "bench-ete-mix: %s re-parses into %zu packets, %zu written\n", argv[1],
			check.n, npk);
		return 1;
	}
	char idx[4200];
	snprintf(idx, sizeof idx, "%s.idx", argv[1]);
	f = fopen(idx, "w");
	for (size_t i = 0; f && i < npk; i++)
		fprintf(f, "%" PRIu32 "\n", offs[i]);
	if (!f || fclose(f)) {
		fprintf(stderr, "bench-ete-mix: cannot write %s\n", idx);
		return 1;
	}
	printf("packets %zu bytes %zu samples %zu\n", npk, len, nsmp);
	free(check.p);
	for (size_t i = 0; i < nsmp; i++)
		free(smp[i].p);
	for (int a = 5; a < argc; a++)
		if (snaps[a])
			trawl_ete_snapshot_close(snaps[a]);
	free(snaps);
	free(smp);
	free(out);
	free(types);
	free(offs);
	return 0;
}
