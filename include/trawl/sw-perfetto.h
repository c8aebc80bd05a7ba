/* Software events and their activities as Chrome Trace Event JSON for
 * Perfetto (docs/analysis.md): events are instants on their thread's track;
 * spans keyed by thread are nested slices there, spans keyed by cpu or a
 * field are async slices; states are slices on one track per core and
 * state activity; messages are flows from the sending core to the
 * receiving one. Written as the events go by: memory does not grow with
 * the trace (only with the number of threads and cores). */
#ifndef TRAWL_SW_PERFETTO_H
#define TRAWL_SW_PERFETTO_H

#include <stdio.h>

#include "trawl/status.h"
#include "trawl/sw-activity.h"

struct trawl_swperf;

/* act may be NULL (events only); defs and act must outlive the writer. */
enum trawl_status trawl_swperf_begin(struct trawl_swperf **out, FILE *f, const char *process,
				     const struct trawl_defs *defs, const struct trawl_act *act,
				     struct trawl_error *err);
/* Events in time order; each activity after the events it spans. */
void trawl_swperf_event(struct trawl_swperf *p, const struct trawl_sw_event *ev);
void trawl_swperf_activity(struct trawl_swperf *p, const struct trawl_act_record *r);
/* Track names, the closing brackets; frees p. */
enum trawl_status trawl_swperf_end(struct trawl_swperf *p, struct trawl_error *err);

#endif
