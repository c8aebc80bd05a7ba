/* AutoFDO text profiles from counted ranges (trawl/ranges.h).
 *
 * Layout (what simpleperf inject writes and create_llvm_prof / create_gcov
 * --profiler text read), one block per binary:
 *     N                      ranges: begin-last:count (hex, no 0x; last is
 *     begin-last:count       the address of the range's last instruction)
 *     0                      sampled addresses: none (a full trace has no
 *                            samples; the ranges carry the counts)
 *     M                      taken branches from an instruction of this
 *     from->to:count         binary; to is 0 when it left the binary
 *     // build_id: 0x...     (when the ELF has one, padded to 20 bytes)
 *     // PATH
 * Addresses are relative to the binary: the load address minus its first
 * executable segment's page (what llvm-profgen's --use-offset assumes).
 * Without images, one block of absolute addresses and no comment lines.
 * TRAWL_AUTOFDO_PROFGEN writes llvm-profgen's unsymbolized input instead:
 * ranges then branches, no address section and no comments, one binary.
 */
#ifndef TRAWL_AUTOFDO_H
#define TRAWL_AUTOFDO_H

#include <stdio.h>

#include "trawl/image.h"
#include "trawl/ranges.h"

enum trawl_autofdo_format {
	TRAWL_AUTOFDO_TEXT = 0,  /* create_llvm_prof / simpleperf text */
	TRAWL_AUTOFDO_PROFGEN,   /* llvm-profgen --unsymbolized-profile */
};

struct trawl_autofdo_options {
	enum trawl_autofdo_format format;
	/* only this binary (path as given, or its file name); NULL = all */
	const char *binary;
	/* the input lost records (its reader said so): a binary it does not
	 * name may be among them, so it is loss, not a usage error */
	int damaged;
};

/* What was written, for the caller's messages. */
struct trawl_autofdo_stats {
	size_t blocks;
	uint64_t ranges_outside;   /* ranges in no image (not written) */
};

/* Whether opt can be written for img: the errors trawl_autofdo_write
 * would give for the choice of binary, before any trace is read.
 * TRAWL_ERR_NOT_FOUND when opt->binary names no module of a whole input,
 * TRAWL_ERR_CORRUPT when the input was damaged (opt->damaged). */
enum trawl_status trawl_autofdo_check(const struct trawl_image *img,
				      const struct trawl_autofdo_options *opt,
				      struct trawl_error *err);

/* Write the profile of r (after trawl_ranges_end_trace) for the modules of
 * img (may be NULL: absolute addresses). TRAWL_ERR_NOT_FOUND (or
 * TRAWL_ERR_CORRUPT, opt->damaged) when opt->binary names no module;
 * TRAWL_ERR_USAGE for the profgen format
 * with several binaries and none chosen; TRAWL_ERR_IO when writing fails. */
enum trawl_status trawl_autofdo_write(FILE *f, struct trawl_ranges *r,
				      const struct trawl_image *img,
				      const struct trawl_autofdo_options *opt,
				      struct trawl_autofdo_stats *stats, struct trawl_error *err);

#endif
