/* What `trawl autofdo` and `trawl coverage` share: reading one or more
 * traces into counted ranges (trawl/ranges.h), with the reader options. */
#ifndef TRAWL_RANGES_CLI_H
#define TRAWL_RANGES_CLI_H

#include "image-check.h"
#include "trace-open.h"

/* Read every trace in paths[0..n) into r, in turn (their counts add up).
 * to holds the command name and reader options; its path is set for each.
 * img (may be NULL): the program image, checked against each trace's
 * encodings (image-check.h). Returns an exit code (0, or after a message). */
int ranges_read_traces(struct trace_open *to, char **paths, int n, struct trawl_ranges *r,
		       const struct trawl_image *img);

#endif
