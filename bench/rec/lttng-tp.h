/* LTTng-UST tracepoint of the same shape as a trawl event (two integers),
 * the peer the recorder is compared with. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER trawlbench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./lttng-tp.h"

#if !defined(LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(trawlbench, ev,
	TP_ARGS(int, which, int, arg),
	TP_FIELDS(
		ctf_integer(int, which, which)
		ctf_integer(int, arg, arg)
	)
)

#endif

#include <lttng/tracepoint-event.h>
