/* The index builder's external sorter (lib/index/spool.c) and the build
 * end to end on an instruction stream without text, as the ETE reader
 * gives it.
 *
 * Sorter: records of every size the index uses, with few distinct keys
 * (long runs of one key, as a PC in a loop gives), keys that differ only
 * in their high bytes, and sort buffers small enough for dozens of runs;
 * truth is qsort by (key, insertion number), so ties must keep the order
 * they were added in, and the fence table must hold the first 16 bytes of
 * every 256th output record.
 *
 * Build: two builds of one stream give the same bytes (but for the build
 * time), and reading the whole index once (trawl_index_verify, as
 * `trawl index` does) leaves the process holding a bounded part of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/format.h"
#include "index/spool.h"
#include "trawl/index.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static size_t g_rec;

/* by key, then by the insertion number in bytes 8-15 */
static int by_key_then_seq(const void *a, const void *b)
{
	uint64_t ka = get64(a), kb = get64(b), sa = get64((const uint8_t *)a + 8),
		 sb = get64((const uint8_t *)b + 8);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return sa < sb ? -1 : sa > sb;
}

/* n records of size rec through a sorter of `memory` bytes; the output and
 * fences against the reference. */
static void sort_case(size_t rec, size_t n, size_t memory, int shape, uint64_t seed)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	struct idx_sorter so;
	assert_int_equal(idx_sorter_init(&so, rec, memory, "/tmp", &err), TRAWL_OK);
	uint8_t *ref = malloc(n * rec);
	assert_non_null(ref);
	uint64_t s = seed, key = 0x400000;
	for (size_t i = 0; i < n; i++) {
		uint8_t *r = ref + i * rec;
		switch (shape) {
		case 0: /* loops: a handful of PCs, each repeated in stretches */
			if (rng(&s) % 64 == 0)
				key = 0x400000 + 4 * (rng(&s) % 40);
			break;
		case 1: /* keys that differ in every byte, many ties */
			key = rng(&s) % 7 * 0x0101010101010101ull;
			break;
		default: /* spread over the whole range */
			key = rng(&s);
			break;
		}
		memcpy(r, &key, 8);
		uint64_t seq = i;
		memcpy(r + 8, &seq, 8);
		for (size_t j = 16; j < rec; j++)
			r[j] = (uint8_t)rng(&s);
		uint8_t *p;
		assert_int_equal(idx_sorter_add(&so, &p, &err), TRAWL_OK);
		memcpy(p, r, rec);
	}
	g_rec = rec;
	qsort(ref, n, rec, by_key_then_seq);

	struct idx_file out;
	assert_int_equal(idx_file_temp(&out, "/tmp", "sort test output", &err), TRAWL_OK);
	struct idx_fence fence;
	memset(&fence, 0, sizeof fence);
	assert_int_equal(idx_sorter_output(&so, &out, &fence, &err), TRAWL_OK);
	assert_int_equal(idx_file_flush(&out, &err), TRAWL_OK);
	assert_int_equal(out.pos, n * rec);
	uint8_t *got = malloc(n * rec + 1);
	assert_non_null(got);
	assert_int_equal(pread(out.fd, got, n * rec, 0), (ssize_t)(n * rec));
	assert_memory_equal(got, ref, n * rec);
	size_t nf = (n + IDX_FENCE - 1) / IDX_FENCE;
	assert_int_equal(fence.n, nf * FENCE_REC);
	for (size_t f = 0; f < nf; f++)
		assert_memory_equal(fence.p + f * FENCE_REC, ref + f * IDX_FENCE * rec, FENCE_REC);
	free(fence.p);
	free(got);
	free(ref);
	idx_file_close(&out);
	idx_sorter_release(&so);
}

static void sorter_matches_stable_sort(void **state)
{
	(void)state;
	static const size_t recs[] = { 16, 24, 32, 88 };
	for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++)
		for (int shape = 0; shape < 3; shape++) {
			size_t rec = recs[i];
			/* in memory only, then ~30 runs, then runs of 64 records */
			sort_case(rec, 5000, 64u << 20, shape, 1 + shape);
			sort_case(rec, 30011, 2 * rec * 1000, shape, 7 + shape);
			sort_case(rec, 3000, 1, shape, 11 + shape);
		}
}

/* An instruction stream as the ETE reader gives it: no text (line = event
 * number), no register or memory effects, PCs going round loops. */
static void build_textless(const char *path, size_t nev)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	struct trawl_index_builder *b;
	struct trawl_index_build_options opt;
	memset(&opt, 0, sizeof opt);
	opt.sort_memory = 4u << 20;
	assert_int_equal(trawl_index_builder_create(&b, path, &opt, &err), TRAWL_OK);
	struct trawl_event *ev = calloc(4096, sizeof *ev);
	assert_non_null(ev);
	uint64_t s = 5, pc = 0x400000;
	for (size_t done = 0; done < nev;) {
		size_t k = nev - done < 4096 ? nev - done : 4096;
		for (size_t i = 0; i < k; i++) {
			struct trawl_event *e = &ev[i];
			memset(e, 0, sizeof *e);
			e->seq = done + i;
			e->line = done + i + 1;
			e->nlines = 1;
			e->kind = TRAWL_EV_INSN;
			e->flags = TRAWL_EVF_NO_TEXT | TRAWL_EVF_HAS_ENCODING | TRAWL_EVF_HAS_TIME;
			e->time = (done + i) / 1000;
			e->time_unit = TRAWL_TIME_CLK;
			pc = rng(&s) % 16 == 0 ? 0x400000 + 4 * (rng(&s) % 500) : pc + 4;
			e->u.insn.pc = pc;
			e->u.insn.encoding = (uint32_t)(0xd5030000u + (pc & 0xffff));
			e->u.insn.width = 4;
			e->u.insn.iset = TRAWL_ISET_A64;
			e->u.insn.el = 1;
		}
		struct trawl_event_batch batch;
		memset(&batch, 0, sizeof batch);
		batch.events = ev;
		batch.count = k;
		batch.pool = (const uint8_t *)"";
		assert_int_equal(trawl_index_builder_add(b, &batch, &err), TRAWL_OK);
		done += k;
	}
	assert_int_equal(trawl_index_builder_finish(b, NULL, &err), TRAWL_OK);
	trawl_index_builder_destroy(b);
	free(ev);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = malloc(*len);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, *len, f), *len);
	fclose(f);
	return p;
}

static long resident_pages(void)
{
	long size = 0, res = -1;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%ld %ld", &size, &res) != 2)
			res = -1;
		fclose(f);
	}
	return res;
}

static char a[64], b[64];

/* a failed assertion leaves the test early: the files go here too */
static int remove_indexes(void **state)
{
	(void)state;
	unlink(a);
	unlink(b);
	return 0;
}

static void textless_build_is_repeatable_and_verify_is_flat(void **state)
{
	(void)state;
	snprintf(a, sizeof a, "/tmp/trawl-test-isort-%d-a.trawlidx", (int)getpid());
	snprintf(b, sizeof b, "/tmp/trawl-test-isort-%d-b.trawlidx", (int)getpid());
	size_t nev = 2000000;
	build_textless(a, nev);
	build_textless(b, nev);
	size_t la, lb;
	uint8_t *pa = slurp(a, &la), *pb = slurp(b, &lb);
	assert_int_equal(la, lb);
	/* the build time (80-87) and creation time (88-95) differ, and so
	 * the header's own checksum; everything else is the same */
	memset(pa + 80, 0, 16);
	memset(pb + 80, 0, 16);
	memset(pa + IDX_HDR_CHECKSUM_OFF, 0, 8);
	memset(pb + IDX_HDR_CHECKSUM_OFF, 0, 8);
	assert_memory_equal(pa, pb, la);
	free(pa);
	free(pb);
	unlink(b);

	struct trawl_error err;
	trawl_error_clear(&err);
	struct trawl_index *ix;
	assert_int_equal(trawl_index_open(&ix, a, NULL, &err), TRAWL_OK);
	assert_int_equal(trawl_index_event_count(ix), nev);
	long pg = sysconf(_SC_PAGESIZE), before = resident_pages();
	assert_int_equal(trawl_index_verify(ix, &err), TRAWL_OK);
	long after = resident_pages();
	/* the index is ~50 MB; verify reads all of it in 16 MiB windows and
	 * lets go of each: at most about one window may stay */
	assert_true(la > (size_t)40 << 20);
	if (before >= 0 && after >= 0)
		assert_true((after - before) * pg < 24L << 20);
	trawl_index_close(ix);
	unlink(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sorter_matches_stable_sort),
		cmocka_unit_test_teardown(textless_build_is_repeatable_and_verify_is_flat,
					  remove_indexes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
