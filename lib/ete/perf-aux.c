/* How the AUXTRACE chunks of a recording fit together: each AUX buffer
 * (a CPU's, or a thread's in per-thread recordings) is one byte stream
 * whose positions the chunks' AUX offsets give. In full mode a chunk goes
 * on where the one before it ended, and the AUX records the kernel wrote
 * say which bytes it produced; in snapshot mode (perf record -S) each
 * chunk is a capture of its own, in time order (perf's find_snapshot
 * unwraps the ring before writing it), usually starting mid-packet. */
#include <stdio.h>
#include <stdlib.h>

#include "trawl/perf.h"

int trawl_perf_snapshot_mode(const struct trawl_perf_file *f)
{
	return f->etm_snapshot || f->aux_overwrite;
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
	out->first = first;
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

/* What a chunk holds: its CPU and [off, end) of that CPU's AUX data. Kept
 * sorted by CPU, then offset, so the chunks that can hold an AUX record's
 * bytes are found by bisection. */
struct span {
	int32_t cpu;
	uint64_t off, end;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Bytes of [off, off + n) that the spans of `cpu` hold: from the span
 * before the first of the CPU at or above off (it may reach in), while
 * spans start below the end. In a sound file a CPU's spans do not overlap;
 * the sum is capped at n all the same. */
static uint64_t covered(const struct span *sp, size_t ns, int32_t cpu, uint64_t off, uint64_t n)
{
	size_t lo = 0, hi = ns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp[mid].cpu < cpu || (sp[mid].cpu == cpu && sp[mid].off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && sp[lo - 1].cpu == cpu)
		lo--;
	uint64_t sum = 0, end = off + n < off ? UINT64_MAX : off + n;
	for (size_t i = lo; i < ns && sp[i].cpu == cpu && sp[i].off < end; i++) {
		uint64_t a = sp[i].off > off ? sp[i].off : off, b = sp[i].end < end ? sp[i].end : end;
		if (b > a)
			sum += b - a;
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
	struct span *sp = malloc((f->nchunks ? f->nchunks : 1) * sizeof *sp);
	if (!sp)
		return 0;
	for (size_t i = 0; i < f->nchunks; i++) {
		const struct trawl_perf_auxtrace *c = &f->chunks[i];
		sp[i].cpu = c->cpu;
		sp[i].off = c->aux_offset;
		sp[i].end = c->aux_offset + c->avail < c->aux_offset ? UINT64_MAX
			    : c->aux_offset + c->avail;
	}
	qsort(sp, f->nchunks, sizeof *sp, cmp_span);
	for (size_t i = 0; i < f->naux; i++) {
		const struct trawl_perf_aux *a = &f->aux[i];
		if (a->cpu < 0 || !a->aux_size)
			continue;
		uint64_t lost = a->aux_size - covered(sp, f->nchunks, a->cpu, a->aux_offset, a->aux_size);
		if (!lost)
			continue;
		if (!n++)
			*first = i;
		*bytes += lost;
	}
	free(sp);
	return n;
}

unsigned trawl_perf_aux_losses(const struct trawl_perf_file *f, trawl_perf_loss_fn fn, void *ctx)
{
	char msg[256];
	unsigned n = 0;
	for (size_t i = 0; i < f->naux; i++) {
		const struct trawl_perf_aux *a = &f->aux[i];
		uint64_t fl = a->flags;
		if (!(fl & (TRAWL_PERF_AUX_TRUNCATED | TRAWL_PERF_AUX_PARTIAL | TRAWL_PERF_AUX_COLLISION)))
			continue;
		snprintf(msg, sizeof msg, "AUX record (cpu %d, %llu bytes) marked%s%s%s: trace was lost "
			 "there", a->cpu, (unsigned long long)a->aux_size,
			 fl & TRAWL_PERF_AUX_TRUNCATED ? " truncated" : "",
			 fl & TRAWL_PERF_AUX_PARTIAL ? " partial" : "",
			 fl & TRAWL_PERF_AUX_COLLISION ? " collision" : "");
		fn(ctx, a->offset, msg);
		n++;
	}
	size_t first;
	uint64_t bytes;
	size_t k = trawl_perf_aux_missing(f, &first, &bytes);
	if (k) {
		const struct trawl_perf_aux *a = &f->aux[first];
		snprintf(msg, sizeof msg, "AUX record (cpu %d, AUX offset %llu, %llu bytes): its trace is "
			 "not in the file (no AUXTRACE record holds it; %zu AUX record%s, %llu bytes "
			 "missing in all)", a->cpu, (unsigned long long)a->aux_offset,
			 (unsigned long long)a->aux_size, k, k == 1 ? "" : "s", (unsigned long long)bytes);
		fn(ctx, a->offset, msg);
		n++;
	}
	return n;
}
