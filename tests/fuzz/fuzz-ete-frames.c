/* libFuzzer harness: CoreSight frame deformatter (plain, TPIU and DSTREAM
 * modes, picked by the first byte) feeding one packet decoder per ID, plus
 * the INI parser on the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

#include "ete/ini.h"

struct ctx {
	struct trawl_ete_pkt_decoder *d[128];
	struct trawl_ete_config cfg;
};

static uint64_t sink;

static void on_pkts(void *c, const struct trawl_ete_packet *p, size_t n)
{
	(void)c;
	for (size_t i = 0; i < n; i++)
		sink += p[i].offset;
}

static void on_bytes(void *c, uint8_t id, const uint8_t *data, size_t n, uint64_t off)
{
	struct ctx *x = c;
	sink += off;
	if (id >= 128)
		abort(); /* the deformatter must never hand out such IDs */
	if (!x->d[id] && trawl_ete_pkt_decoder_create(&x->d[id], &x->cfg, on_pkts, NULL, NULL) != TRAWL_OK)
		return;
	trawl_ete_pkt_decoder_feed(x->d[id], data, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int mode = data[0] % 3;
	struct ctx x;
	memset(&x, 0, sizeof x);
	trawl_ete_config_default(&x.cfg);
	struct trawl_ete_deformatter *df;
	if (trawl_ete_deformatter_create(&df, mode, on_bytes, &x, NULL) != TRAWL_OK)
		return 0;
	size_t chunk = (size_t)(data[0] >> 2) + 1;
	for (size_t i = 1; i < size; i += chunk)
		trawl_ete_deformatter_feed(df, data + i, size - i < chunk ? size - i : chunk);
	trawl_ete_deformatter_finish(df);
	trawl_ete_deformatter_destroy(df);
	for (int i = 0; i < 128; i++)
		if (x.d[i]) {
			trawl_ete_pkt_decoder_finish(x.d[i]);
			trawl_ete_pkt_decoder_destroy(x.d[i]);
		}
	struct trawl_ini *ini;
	if (trawl_ini_parse(&ini, (const char *)data, size, "fuzz", NULL) == TRAWL_OK) {
		for (size_t i = 0; i < trawl_ini_count(ini); i++)
			sink += strlen(trawl_ini_at(ini, i)->value);
		trawl_ini_destroy(ini);
	}
	return 0;
}
