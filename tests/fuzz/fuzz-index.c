/* Fuzz the index reader: the input is an index file. Opening it and
 * running every kind of query must never crash, hang or read out of
 * bounds; damage is reported as an error. Each input is tried as it is,
 * with its header checksum repaired (mutated header fields and section
 * tables meet the checks behind it), and with every block checksum
 * repaired too (mutated data gets past the checksums and meets the bounds
 * checks of the queries). The seeds hold both kinds: in a compact index
 * the repaired checksums let mutated frames reach the decoder, and
 * mutated literal bytes reach the queries as decoded records. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdlib.h>

#include <xxhash.h>

#include "index/format.h"
#include "trawl/index.h"
#include "fuzz-memfd.h"

static int count_change(void *ctx, const struct trawl_index_change *c)
{
	(void)c;
	return ++*(int *)ctx > 100000;
}

static void queries(struct trawl_index *ix)
{
	struct trawl_error err;
	struct trawl_index_regs regs;
	uint64_t n = trawl_index_event_count(ix), out;
	uint8_t val[200], known[25];
	trawl_index_regs_init(&regs);
	trawl_index_verify(ix, &err);
	uint64_t pts[4] = { 0, n / 3, n / 2, n ? n - 1 : 0 };
	for (int i = 0; i < 4 && n; i++) {
		uint64_t ev = pts[i];
		struct trawl_index_event e;
		if (trawl_index_event(ix, ev, &e, &err))
			continue;
		trawl_index_event_at_line(ix, e.line, &out, &err);
		trawl_index_event_at_time(ix, e.time, &out, &err);
		trawl_index_event_at_offset(ix, e.offset, &out, &err);
		trawl_index_regs_at(ix, ev, e.cpu, &regs, &err);
		const uint8_t *v, *k;
		trawl_index_regs_view(&regs, 0, &v, &k);
		trawl_index_regs_view(&regs, TRAWL_REG_SYS_BASE, &v, &k);
		trawl_index_reg_name(ix, TRAWL_REG_SYS_BASE + 1);
		uint64_t addrs[3] = { 0x10000, 0x7fff0000, e.pc };
		for (int a = 0; a < 3; a++) {
			trawl_index_mem_at(ix, ev, addrs[a] - 7, sizeof val, val, known, &err);
			trawl_index_last_write_mem(ix, ev, addrs[a], 16, &out, &err);
			trawl_index_next_write_mem(ix, ev, addrs[a], 16, &out, &err);
		}
		trawl_index_last_write_reg(ix, ev, e.cpu, 0, 0, 8, &out, &err);
		trawl_index_next_write_reg(ix, ev, e.cpu, 40, 0, 16, &out, &err);
		uint64_t c = trawl_index_pc_count(ix, e.pc);
		if (c)
			trawl_index_pc_visit(ix, e.pc, c - 1, &out, &err);
		trawl_index_pc_step(ix, e.pc, ev, 1, &out, &err);
		trawl_index_pc_step(ix, e.pc, ev, -1, &out, &err);
	}
	struct trawl_index_info info;
	trawl_index_get_info(ix, &info);
	if (n && info.cpus <= 8) {
		uint64_t to = n - 1 < 64 ? n - 1 : 64;
		int count = 0;
		trawl_index_changes(ix, 0, to, count_change, &count, &err);
	}
	trawl_index_regs_release(&regs);
}

static void run(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd("fuzz-index", data, size, path);
	if (fd < 0)
		return;
	struct trawl_index *ix;
	struct trawl_error err;
	if (trawl_index_open(&ix, path, NULL, &err) == TRAWL_OK) {
		queries(ix);
		trawl_index_close(ix);
	}
	close(fd);
}

/* Recompute SUMS, SUMS_TOP and the header's field for it, where the
 * section table says they are (nothing when it makes no sense). */
static void repair_sums(uint8_t *p, size_t size)
{
	uint64_t so = 0, sl = 0, to = 0, tl = 0;
	uint32_t nsec = ld32(p + 100);
	for (uint32_t i = 0; i < nsec && i < IDX_MAX_SECTIONS; i++) {
		const uint8_t *e = p + 128 + 32 * i;
		if (ld32(e) == SEC_SUMS)
			so = ld64(e + 8), sl = ld64(e + 16);
		if (ld32(e) == SEC_SUMS_TOP)
			to = ld64(e + 8), tl = ld64(e + 16);
	}
	uint64_t nb = (so + IDX_BLOCK - 1) >> IDX_BLOCK_LOG;
	uint64_t ntop = (nb + IDX_SUMS_PER_TOP - 1) / IDX_SUMS_PER_TOP;
	if (so < IDX_HEADER_SIZE || so > size || sl != nb * 4 || sl > size - so || to > size ||
	    tl != ntop * 8 || tl > size - to || to < so + sl)
		return;
	for (uint64_t b = 0; b < nb; b++) {
		uint64_t lo = b << IDX_BLOCK_LOG, hi = (b + 1) << IDX_BLOCK_LOG;
		lo = lo < IDX_HEADER_SIZE ? IDX_HEADER_SIZE : lo;
		hi = hi > so ? so : hi;
		st32(p + so + 4 * b, idx_block_sum(p + lo, (size_t)(hi - lo), b));
	}
	for (uint64_t j = 0; j < ntop; j++) {
		uint64_t lo = j * IDX_PIECE, hi = lo + IDX_PIECE < sl ? lo + IDX_PIECE : sl;
		st64(p + to + 8 * j, idx_top_sum(p + so + lo, (size_t)(hi - lo), j));
	}
	st64(p + 896, XXH3_64bits(p + to, (size_t)tl));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run(data, size);
	if (size >= IDX_HEADER_SIZE) {
		uint8_t *copy = malloc(size);
		if (!copy)
			return 0;
		memcpy(copy, data, size);
		st64(copy + IDX_HDR_CHECKSUM_OFF, idx_hash(0, copy, IDX_HDR_CHECKSUM_OFF));
		if (memcmp(copy, data, size) != 0)
			run(copy, size);
		repair_sums(copy, size);
		st64(copy + IDX_HDR_CHECKSUM_OFF, idx_hash(0, copy, IDX_HDR_CHECKSUM_OFF));
		if (memcmp(copy, data, size) != 0)
			run(copy, size);
		free(copy);
	}
	return 0;
}
