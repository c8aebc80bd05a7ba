/* A perf.data CPU's trace, segment by segment (docs/perf.md, "Decoding"):
 * which trace unit a chunk is from, whether its bytes are raw (TRBE) or
 * frame-formatted, when a chunk starts the decoding over (it does not go
 * on from the one before) and what that costs (bytes missing before it,
 * bytes before the new segment's first sync point). `trawl ete` and the
 * reader backend own their decoders and do the flushing and resetting;
 * the decisions and their messages are made here, once. */
#include <inttypes.h>
#include <stdio.h>

#include "trawl/perf.h"

const struct trawl_perf_etm_cpu *trawl_perf_chunk_unit(const struct trawl_perf_file *f,
							const struct trawl_perf_auxtrace *c,
							char *msg, size_t cap)
{
	const struct trawl_perf_etm_cpu *e = trawl_perf_etm_for_cpu(f, c->cpu);
	if (!e && c->cpu < 0 && f->netm)
		e = &f->etm[0]; /* per-thread recording: one trace unit */
	if (e && e->cfg_ok)
		return e;
	snprintf(msg, cap, "AUXTRACE for cpu %d: %s: skipped", c->cpu,
		 e ? "ETMv3/PTM trace is not decoded" : "no trace unit");
	return NULL;
}

int trawl_perf_chunk_raw(const struct trawl_perf_file *f, const struct trawl_perf_etm_cpu *e)
{
	int raw = trawl_perf_aux_raw(f, (int32_t)e->cpu);
	return raw < 0 ? e->cfg.is_ete : raw; /* no AUX record: TRBE is the ETE sink */
}

void trawl_perf_segment_step(const struct trawl_perf_file *f, size_t i, uint32_t cpu,
			     struct trawl_perf_segment_step *out)
{
	struct trawl_perf_chunk_place pl;
	trawl_perf_chunk_place(f, i, &pl);
	out->end_first = pl.restart;
	out->begins = pl.restart || pl.first || pl.snapshot || pl.missing;
	out->why = pl.snapshot ? 1 : pl.restart || pl.missing ? 2 : 3;
	out->missing = pl.missing;
	out->msg[0] = 0;
	if (pl.missing)
		snprintf(out->msg, sizeof out->msg, "AUXTRACE (cpu %u) at AUX offset %" PRIu64 ": the %"
			 PRIu64 " bytes of AUX data before it are not in the file", cpu,
			 f->chunks[i].aux_offset, pl.missing);
}

void trawl_perf_segment_begin(struct trawl_perf_segment *s, size_t i,
			      const struct trawl_perf_segment_step *st, uint64_t unsynced)
{
	s->chunk = i;
	s->why = st->why;
	s->unsynced0 = unsynced;
}

uint64_t trawl_perf_segment_lost(const struct trawl_perf_file *f,
				 const struct trawl_perf_segment *s, uint32_t cpu, uint64_t unsynced,
				 char *msg, size_t cap, uint64_t *offset)
{
	uint64_t k = unsynced - s->unsynced0;
	if (!k || !s->why)
		return 0;
	*offset = f->chunks[s->chunk].offset;
	snprintf(msg, cap, "AUXTRACE (cpu %u): its first %" PRIu64 " bytes, before a sync point, "
		 "are not decoded%s", cpu, k, s->why == 1 ? " (a snapshot of an AUX ring that had "
		 "wrapped: older trace was overwritten)" : s->why == 3 ? " (the start of the CPU's "
		 "trace)" : "");
	return k;
}
