/* bench-ete-speed SNAPSHOT_DIR MODE SECONDS
 *
 * Times trawl's ETE decoding of a snapshot's first trace buffer in
 * process CPU time, without text output, repeating the whole buffer until
 * SECONDS have passed:
 *   count    packets parsed and counted by the decoder itself (no records)
 *   packets  packet decoding to 64-byte records handed to a callback
 *   decode   packets + instruction flow to ranges (a counting consumer)
 * Prints "MB/s packets/s instructions/s best-pass-MB/s median-pass-MB/s
 * packets-in-one-pass" on one line: the first three over all the time,
 * then the fastest single pass (what the code costs when no other tenant
 * of a shared machine gets in the way) and the median pass (robust to a
 * few passes that were interrupted, unlike the mean), then the packets
 * the last pass found (bench-ete.sh checks it against OpenCSD's count).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trawl/ete.h"

#include "pass-times.h"

static uint64_t npkts, ninsns, nranges;

static void on_pkts_count(void *ctx, const struct trawl_ete_packet *p, size_t n)
{
	(void)ctx;
	(void)p;
	npkts += n;
}

static void on_pkts_flow(void *ctx, const struct trawl_ete_packet *p, size_t n)
{
	npkts += n;
	trawl_ete_flow_packets(ctx, p, n);
}

static void on_elem(void *ctx, const struct trawl_ete_elem *e)
{
	(void)ctx;
	if (e->type == TRAWL_ETE_EL_RANGE) {
		ninsns += e->count;
		nranges++;
	}
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: bench-ete-speed SNAPSHOT_DIR count|packets|decode SECONDS\n");
		return 2;
	}
	struct trawl_error err;
	struct trawl_ete_snapshot *s;
	if (trawl_ete_snapshot_open(&s, argv[1], &err) != TRAWL_OK) {
		char msg[512];
		trawl_error_format(&err, msg, sizeof msg);
		fprintf(stderr, "bench-ete-speed: %s\n", msg);
		return 1;
	}
	int decode = !strcmp(argv[2], "decode"), count = !strcmp(argv[2], "count");
	double limit = atof(argv[3]);
	const struct trawl_ete_buffer *b = &s->buffers[0];
	const struct trawl_ete_config *cfg = &s->sources[0].cfg;
	uint64_t bytes = 0;
	double t0 = pass_cpu_now(), t = t0;
	struct pass_times pt = { 0 };
	uint64_t pass_pkts = 0;
	while (t - t0 < limit) {
		double tp = t;
		uint64_t before = npkts;
		struct trawl_ete_pkt_decoder *d;
		struct trawl_ete_flow *f = NULL;
		if (decode && trawl_ete_flow_create(&f, cfg, s->image, on_elem, NULL, &err) != TRAWL_OK)
			return 1;
		if (trawl_ete_pkt_decoder_create(&d, cfg,
						 count ? NULL : decode ? on_pkts_flow : on_pkts_count, f,
						 &err) != TRAWL_OK)
			return 1;
		trawl_ete_pkt_decoder_feed(d, b->data, b->len);
		trawl_ete_pkt_decoder_finish(d);
		if (count)
			npkts += trawl_ete_pkt_decoder_stats(d)->packets;
		if (f)
			trawl_ete_flow_finish(f);
		trawl_ete_pkt_decoder_destroy(d);
		trawl_ete_flow_destroy(f);
		bytes += b->len;
		pass_pkts = npkts - before;
		t = pass_cpu_now();
		if (pass_add(&pt, t - tp))
			return 1;
	}
	double sec = t - t0, best, med;
	pass_summary(&pt, &best, &med);
	printf("%.1f %.0f %.0f %.1f %.1f %" PRIu64 "\n", (double)bytes / sec / 1e6, (double)npkts / sec,
	       (double)ninsns / sec, (double)b->len / best / 1e6, (double)b->len / med / 1e6, pass_pkts);
	free(pt.t);
	trawl_ete_snapshot_close(s);
	return 0;
}
