/* libFuzzer harness: the ETE/ETMv4 packet decoder and the flow decoder.
 * The first input byte picks a configuration and a chunk size, so odd
 * configurations (ETMv4, Q support, speculation, context sizes) and every
 * chunk boundary are exercised; the rest is the trace. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

static uint64_t sink;

static void on_elem(void *ctx, const struct trawl_ete_elem *e)
{
	(void)ctx;
	sink += e->start + e->count;
}

static void on_pkts(void *ctx, const struct trawl_ete_packet *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sink += p[i].addr + p[i].type;
	trawl_ete_flow_packets(ctx, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t prog[] = { 0x1f, 0x20, 0x03, 0xd5, 0x41, 0x00, 0x00, 0x54,
					0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6,
					0xfe, 0xe7, 0x70, 0x47, 0x1e, 0xff, 0x2f, 0xe1 };
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
	struct trawl_ete_image *img = NULL;
	struct trawl_ete_flow *flow = NULL;
	struct trawl_ete_pkt_decoder *d = NULL;
	if (trawl_ete_image_create(&img, NULL) != TRAWL_OK)
		return 0;
	trawl_ete_image_add(img, 0, prog, sizeof prog, "p", NULL);
	trawl_ete_image_add(img, 0x1000, prog, sizeof prog, "p", NULL);
	if (trawl_ete_flow_create(&flow, &cfg, img, on_elem, NULL, NULL) != TRAWL_OK)
		goto out;
	if (trawl_ete_pkt_decoder_create(&d, &cfg, on_pkts, flow, NULL) != TRAWL_OK)
		goto out;
	for (size_t i = 0; i < size; i += chunk)
		trawl_ete_pkt_decoder_feed(d, data + i, size - i < chunk ? size - i : chunk);
	trawl_ete_pkt_decoder_finish(d);
	trawl_ete_flow_finish(flow);
out:
	trawl_ete_pkt_decoder_destroy(d);
	trawl_ete_flow_destroy(flow);
	trawl_ete_image_destroy(img);
	return 0;
}
