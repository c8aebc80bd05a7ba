/* libFuzzer harness: the perf.data reader (header, records, cs_etm
 * AUXTRACE_INFO, build-id feature), then the lookups the CLI makes and
 * every AUXTRACE chunk through a deformatter, so chunk pointers and sizes
 * are checked against the file's bounds, and how the chunks fit together
 * (restarts, missing AUX data). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/perf.h"

static uint64_t sink;

static void on_bytes(void *c, uint8_t id, const uint8_t *data, size_t n, uint64_t off)
{
	(void)c;
	for (size_t i = 0; i < n; i++)
		sink += data[i] + id + off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trawl_perf_file *f;
	if (trawl_perf_open_mem(&f, data, size, "fuzz", NULL) != TRAWL_OK)
		return 0;
	for (size_t i = 0; i < f->netm; i++) {
		sink += (uint64_t)trawl_perf_trace_id(f, (int32_t)f->etm[i].cpu);
		sink += (uint64_t)trawl_perf_aux_raw(f, (int32_t)f->etm[i].cpu);
	}
	struct trawl_ete_deformatter *df;
	if (trawl_ete_deformatter_create(&df, 0, on_bytes, NULL, NULL) == TRAWL_OK) {
		for (size_t i = 0; i < f->nchunks; i++) {
			const struct trawl_perf_auxtrace *c = &f->chunks[i];
			if (c->data < f->mem || c->data + c->avail > f->mem + f->len)
				abort(); /* a chunk must lie inside the file */
			trawl_ete_deformatter_feed(df, c->data, c->avail);
		}
		trawl_ete_deformatter_finish(df);
		trawl_ete_deformatter_destroy(df);
	}
	/* how the chunks fit: the first AUX record named must exist */
	for (size_t i = 0; i < f->nchunks; i++) {
		struct trawl_perf_chunk_place pl;
		trawl_perf_chunk_place(f, i, &pl);
		sink += pl.missing + (uint64_t)pl.restart;
	}
	size_t first;
	uint64_t lost;
	if (trawl_perf_aux_missing(f, &first, &lost) && first >= f->naux)
		abort();
	sink += lost;
	for (size_t i = 0; i < f->nmmaps; i++)
		sink += strlen(f->mmaps[i].filename);
	for (size_t i = 0; i < f->nbids; i++)
		sink += strlen(f->bids[i].filename);
	trawl_perf_close(f);
	return 0;
}
