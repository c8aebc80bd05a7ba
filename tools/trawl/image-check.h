/* Whether the program image (--image) holds the code a trace ran: the
 * call commands name functions by the image's symbols, so the image of
 * another program (or another build) gives wrong names and a wrong tree
 * with nothing to show for it. The encodings the trace gives are compared
 * with the image's bytes at their PC. */
#ifndef TRAWL_IMAGE_CHECK_H
#define TRAWL_IMAGE_CHECK_H

#include <stdint.h>

#include "trawl/event.h"
#include "trawl/image.h"

/* Instructions compared at most (the first ones the image covers): a
 * sample, so the check costs nothing on a long trace. */
#define IMAGE_CHECK_SAMPLE 4096u

struct image_check {
	uint64_t checked, differ;
	uint64_t first_line, first_pc;
	uint32_t first_trace, first_image;
};

/* The A64 and A32 instructions of the batch whose encoding the trace gives
 * (4-byte words: little-endian in memory whatever the data endianness, or
 * for A32 also big-endian, as BE-32 images hold them). */
void image_check_batch(struct image_check *c, const struct trawl_image *img,
		       const struct trawl_event *ev, size_t n);
/* When most of those compared differ (a few do in self-modifying code): a
 * warning naming the first, cli_mark_lossy (the names are not to be
 * trusted), and 1; else 0. */
int image_check_report(const char *cmd, const struct image_check *c);

#endif
