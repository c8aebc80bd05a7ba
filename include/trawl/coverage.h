/* Code coverage from counted ranges (trawl/ranges.h): per source line
 * (DWARF line tables, read with elfutils' libdw, loaded at first use), per
 * function (the symbol table) and per conditional branch (A64 B.cond,
 * CBZ/CBNZ, TBZ/TBNZ found in the image's code: taken and not taken).
 *
 * A line is executed as often as the most executed instruction the line
 * table gives it; a function as often as its first instruction, and its
 * declaration line (where lcov and gcov place it) as often as that too.
 */
#ifndef TRAWL_COVERAGE_H
#define TRAWL_COVERAGE_H

#include <stdio.h>

#include "trawl/image.h"
#include "trawl/ranges.h"

/* Line tables of ELF files. */
struct trawl_lines;

/* The address span [lo, hi) the line table gives to file:line. */
struct trawl_line_span {
	uint64_t lo, hi;
	uint32_t file;   /* index for trawl_lines_file */
	uint32_t line;
};

enum trawl_status trawl_lines_create(struct trawl_lines **out, struct trawl_error *err);
void trawl_lines_destroy(struct trawl_lines *l);
/* Add the line table of the ELF at path, loaded offset bytes above its
 * link addresses. TRAWL_ERR_UNSUPPORTED when libdw cannot be loaded;
 * TRAWL_ERR_NOT_FOUND when the file has no line table (built without -g). */
enum trawl_status trawl_lines_add_elf(struct trawl_lines *l, const char *path, uint64_t offset,
				      struct trawl_error *err);
/* Spans sorted by lo (overlaps removed: the later row of the same
 * address wins, as in the line table). */
const struct trawl_line_span *trawl_lines_spans(struct trawl_lines *l, size_t *count);
/* A function's declaration (DW_AT_decl_file/line of a subprogram with
 * code at addr): gcov counts it as the function's first line. */
struct trawl_line_decl {
	uint64_t addr;
	uint32_t file;
	uint32_t line;
};
/* Sorted by addr. */
const struct trawl_line_decl *trawl_lines_decls(struct trawl_lines *l, size_t *count);
const char *trawl_lines_file(const struct trawl_lines *l, uint32_t file);
size_t trawl_lines_file_count(const struct trawl_lines *l);

struct trawl_cov_line {
	uint32_t line;
	uint64_t count;
};

struct trawl_cov_func {
	const char *name;       /* as the ELF has it (lcov's genhtml demangles) */
	uint32_t line;
	uint64_t addr;
	uint64_t count;         /* times its first instruction ran */
};

struct trawl_cov_branch {
	uint32_t line;
	uint32_t block;         /* n-th conditional branch of the line */
	uint64_t addr;
	uint64_t executed;      /* 0: never reached */
	uint64_t taken;         /* not taken = executed - taken */
};

struct trawl_cov_file {
	const char *path;
	struct trawl_cov_line *lines;     /* sorted by line */
	size_t nlines;
	struct trawl_cov_func *funcs;     /* sorted by line */
	size_t nfuncs;
	struct trawl_cov_branch *branches; /* sorted by line, block */
	size_t nbranches;
};

struct trawl_coverage {
	struct trawl_cov_file *files;     /* sorted by path */
	size_t nfiles;
};

/* Build the coverage of the code the line tables describe. */
enum trawl_status trawl_coverage_build(struct trawl_coverage *cov, struct trawl_ranges *r,
				       const struct trawl_image *img, struct trawl_lines *lines,
				       struct trawl_error *err);
void trawl_coverage_release(struct trawl_coverage *cov);

/* Writers; TRAWL_ERR_IO when writing fails. */
enum trawl_status trawl_coverage_write_lcov(FILE *f, const struct trawl_coverage *cov,
					    const char *test_name, struct trawl_error *err);
enum trawl_status trawl_coverage_write_text(FILE *f, const struct trawl_coverage *cov,
					    struct trawl_error *err);
/* drcov version 2 (module table and binary basic-block table, as
 * DynamoRIO's drcov writes and Lighthouse reads): one module per ELF of
 * img, one block per distinct executed range (split at 64 KiB). */
enum trawl_status trawl_coverage_write_drcov(FILE *f, struct trawl_ranges *r,
					     const struct trawl_image *img, struct trawl_error *err);

#endif
