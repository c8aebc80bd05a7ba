/* libtrawl: every public header in one include (tests/cli/headers.sh
 * checks that none is left out). The recorder's headers (trawl/rec*.h,
 * under rec/include) are not libtrawl's: programs that record events use
 * them without linking libtrawl. */
#ifndef TRAWL_H
#define TRAWL_H

#include "trawl/status.h"
#include "trawl/reg.h"
#include "trawl/event.h"
#include "trawl/input.h"
#include "trawl/file.h"
#include "trawl/json.h"
#include "trawl/fmt.h"
#include "trawl/number.h"
#include "trawl/disasm.h"
#include "trawl/reader.h"
#include "trawl/image.h"
#include "trawl/ranges.h"
#include "trawl/autofdo.h"
#include "trawl/coverage.h"
#include "trawl/calls.h"
#include "trawl/vcd.h"
#include "trawl/stuck.h"
#include "trawl/index.h"
#include "trawl/tarmac.h"
#include "trawl/ete.h"
#include "trawl/ete-encode.h"
#include "trawl/emu.h"
#include "trawl/expr.h"
#include "trawl/callhop.h"
#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"
#include "trawl/sw-defs.h"
#include "trawl/bf-dump.h"
#include "trawl/sw-stream.h"
#include "trawl/text.h"
#include "trawl/sw-activity.h"
#include "trawl/sw-act-order.h"
#include "trawl/sw-filter.h"
#include "trawl/sw-stats.h"
#include "trawl/sw-script.h"
#include "trawl/sw-perfetto.h"
#include "trawl/perf.h"
#include "trawl/kallsyms.h"

#define TRAWL_VERSION "0.1.0"

#endif
