/* VCD (IEEE 1364 value change dump) export of a trace, for waveform viewers
 * such as GTKWave: per CPU the PC, encoding, instruction text, function,
 * core registers and memory accesses. lib/analysis/vcd.c documents the
 * file layout. */
#ifndef TRAWL_VCD_H
#define TRAWL_VCD_H

#include <stdint.h>
#include <stdio.h>

#include "trawl/event.h"
#include "trawl/image.h"
#include "trawl/status.h"

struct trawl_vcd;

struct trawl_vcd_options {
	int use_timestamps;                 /* time = trace timestamps, not instruction count */
	const struct trawl_image *image;    /* borrowed, may be NULL: the function signal */
};

enum trawl_status trawl_vcd_create(struct trawl_vcd **out, const struct trawl_vcd_options *opt,
				   struct trawl_error *err);
/* Feed events in trace order (value changes go to a temporary file). */
enum trawl_status trawl_vcd_add(struct trawl_vcd *v, const struct trawl_event_batch *b,
				struct trawl_error *err);
/* Write the whole VCD (header, then every change) to f. */
enum trawl_status trawl_vcd_finish(struct trawl_vcd *v, FILE *f, struct trawl_error *err);
/* How often timestamps went backwards (they are then held at the latest
 * time so the file stays valid), and the line of the first time. */
uint64_t trawl_vcd_backwards(const struct trawl_vcd *v, uint64_t *first_line);
void trawl_vcd_destroy(struct trawl_vcd *v);

#endif
