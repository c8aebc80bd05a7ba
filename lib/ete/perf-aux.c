/* How the AUXTRACE chunks of a recording fit together: each AUX buffer
 * (a CPU's, or a thread's in per-thread recordings) is one byte stream
 * whose positions the chunks' AUX offsets give. In full mode a chunk goes
 * on where the one before it ended, and the AUX records the kernel wrote
 * say which bytes it produced; in snapshot mode (perf record -S) each
 * chunk is a capture of its own, in time order (perf's find_snapshot
 * unwraps the ring before writing it), usually starting mid-packet. */
#include "trawl/perf.h"

int trawl_perf_snapshot_mode(const struct trawl_perf_file *f)
{
	if (f->etm_snapshot)
		return 1;
	for (size_t i = 0; i < f->naux; i++)
		if (f->aux[i].flags & TRAWL_PERF_AUX_OVERWRITE)
			return 1;
	return 0;
}

/* Chunks of one AUX buffer: the same mmap index and CPU. */
static int same_buffer(const struct trawl_perf_auxtrace *a, const struct trawl_perf_auxtrace *b)
{
	return a->idx == b->idx && a->cpu == b->cpu;
}

void trawl_perf_chunk_place(const struct trawl_perf_file *f, size_t i,
			    struct trawl_perf_chunk_place *out)
{
	const struct trawl_perf_auxtrace *c = &f->chunks[i];
	out->restart = 0;
	out->snapshot = trawl_perf_snapshot_mode(f);
	out->missing = 0;
	uint64_t end = 0;
	int first = 1;
	for (size_t j = i; j-- > 0;)
		if (same_buffer(&f->chunks[j], c)) {
			end = f->chunks[j].aux_offset + f->chunks[j].size;
			first = 0;
			break;
		}
	if (out->snapshot) {
		out->restart = !first;
		return;
	}
	if (c->aux_offset != end) {
		out->restart = !first;
		/* an overlapping or backwards offset is a break too, of no
		 * known size */
		out->missing = c->aux_offset > end ? c->aux_offset - end : 0;
	}
}

/* Bytes of [off, off + n) that the chunks of `cpu` hold. */
static uint64_t covered(const struct trawl_perf_file *f, int32_t cpu, uint64_t off, uint64_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < f->nchunks; i++) {
		const struct trawl_perf_auxtrace *c = &f->chunks[i];
		if (c->cpu != cpu)
			continue;
		uint64_t lo = c->aux_offset > off ? c->aux_offset : off;
		uint64_t hi = c->aux_offset + c->avail < off + n ? c->aux_offset + c->avail : off + n;
		if (hi > lo)
			sum += hi - lo;
	}
	return sum > n ? n : sum;
}

size_t trawl_perf_aux_missing(const struct trawl_perf_file *f, size_t *first, uint64_t *bytes)
{
	size_t n = 0;
	*bytes = 0;
	*first = 0;
	if (trawl_perf_snapshot_mode(f))
		return 0; /* AUX offsets are ring positions there, not the stream's */
	for (size_t i = 0; i < f->naux; i++) {
		const struct trawl_perf_aux *a = &f->aux[i];
		if (a->cpu < 0 || !a->aux_size)
			continue;
		uint64_t lost = a->aux_size - covered(f, a->cpu, a->aux_offset, a->aux_size);
		if (!lost)
			continue;
		if (!n++)
			*first = i;
		*bytes += lost;
	}
	return n;
}
