/* Fuzz harness for DWARF line tables (libdw through lib/analysis/lines.c)
 * and the coverage built on them: any bytes as an ELF file with debug
 * information, no crash; spans come out sorted and disjoint, and no line
 * runs more often than the instructions counted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trawl/coverage.h"
#include "fuzz-memfd.h"

/* Instructions at the first span addresses, twice, as a trace would give. */
static void count_some(struct trawl_ranges *r, const struct trawl_line_span *sp, size_t n)
{
	struct trawl_event ev[64];
	size_t k = 0;
	memset(ev, 0, sizeof ev);
	for (size_t i = 0; i < n && k < 64; i++, k++) {
		ev[k].kind = TRAWL_EV_INSN;
		ev[k].u.insn.pc = sp[i % n].lo;
		ev[k].u.insn.width = 4;
		ev[k].u.insn.iset = TRAWL_ISET_A64;
	}
	struct trawl_event_batch b = { .events = ev, .count = k };
	trawl_ranges_add(r, &b, NULL);
	trawl_ranges_add(r, &b, NULL);
	trawl_ranges_end_trace(r, NULL);
}

static void check(struct trawl_image *img, struct trawl_lines *lines)
{
	size_t n;
	const struct trawl_line_span *sp = trawl_lines_spans(lines, &n);
	for (size_t i = 0; i < n; i++)
		if (sp[i].hi <= sp[i].lo || (i && sp[i - 1].hi > sp[i].lo) ||
		    sp[i].file >= trawl_lines_file_count(lines))
			abort();
	struct trawl_ranges *r;
	if (trawl_ranges_create(&r, NULL) != TRAWL_OK)
		return;
	count_some(r, sp, n);
	struct trawl_coverage cov;
	FILE *null = fopen("/dev/null", "w");
	if (null && trawl_coverage_build(&cov, r, img, lines, NULL) == TRAWL_OK) {
		for (size_t i = 0; i < cov.nfiles; i++)
			for (size_t j = 0; j < cov.files[i].nlines; j++)
				if (cov.files[i].lines[j].count > trawl_ranges_insns(r))
					abort();
		trawl_coverage_write_lcov(null, &cov, "fuzz", NULL);
		trawl_coverage_write_text(null, &cov, NULL);
		trawl_coverage_write_drcov(null, r, img, NULL);
		trawl_coverage_release(&cov);
	}
	if (null)
		fclose(null);
	trawl_ranges_destroy(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd("fuzz-lines", data, size, path);
	if (fd < 0)
		return 0;
	struct trawl_image *img = NULL;
	struct trawl_lines *lines = NULL;
	if (trawl_image_create(&img, NULL) == TRAWL_OK && trawl_lines_create(&lines, NULL) == TRAWL_OK &&
	    trawl_image_add_elf(img, path, 0, NULL) == TRAWL_OK &&
	    trawl_lines_add_elf(lines, path, 0, NULL) == TRAWL_OK)
		check(img, lines);
	trawl_lines_destroy(lines);
	trawl_image_destroy(img);
	close(fd);
	return 0;
}
